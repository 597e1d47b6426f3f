"""NLM's PubMed distribution as a mirror serves it, read over HTTP(S) one request at a time.

Layout (https://ftp.ncbi.nlm.nih.gov/pubmed/ or a site's own copy): ``baseline/`` holds the annual
baseline and ``updatefiles/`` the daily update files, each ``pubmedYYnNNNN.xml.gz`` with ``NAME.md5``
beside it (``MD5(pubmed25n0001.xml.gz)= 0123…``), both listed as HTML directory pages. The pure
parts (listing, checksum file, NLM's order) are separate from the transfers, whose retry policy the
caller gives (``remote``: runs a zero-argument call with retries; graphs/literature_sync.py passes the
project's one policy). A download resumes a partial file with an HTTP Range request; a server that
ignores ranges sends the whole file again, which then replaces the partial one.
"""

from __future__ import annotations

import hashlib
import http.client
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass
from html import unescape
from pathlib import Path
from typing import Protocol, TypeVar
from urllib.parse import unquote, urlsplit

T = TypeVar("T")
FOLDERS = ("baseline", "updatefiles")  # NLM's order: the baseline, then the updates
FILE_NAME = re.compile(r"^pubmed(\d{2})n(\d{4,5})\.xml\.gz$")
_HREF = re.compile(r"""href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)
_MD5_NLM = re.compile(r"^MD5\s*\((?P<name>[^()]+)\)\s*=\s*(?P<hex>[0-9a-fA-F]{32})$")
_MD5_SUM = re.compile(r"^(?P<hex>[0-9a-fA-F]{32})\s+\*?(?P<name>\S+)$")
CHUNK = 1 << 20
TIMEOUT_S = 60.0


class MirrorError(RuntimeError):
    """The mirror answered, but not with what NLM's layout promises; the message says what."""


class TruncatedTransfer(ConnectionError):
    """The connection ended before the announced length arrived (a transient fault: resumed on retry)."""


@dataclass(frozen=True, order=True)
class RemoteFile:
    """One file of the distribution; sorting puts them in NLM's order (baseline by number, then updates)."""

    rank: int  # FOLDERS.index(folder)
    year: int  # the release's two digits: pubmed25n… after pubmed24n…
    _: KW_ONLY
    number: int
    folder: str
    name: str


def listed_files(page: str) -> list[str]:
    """The distribution's file names a directory page links to, once each, in page order."""
    names = []
    for match in _HREF.finditer(page):
        link = unescape(next(g for g in match.groups() if g is not None))
        name = unquote(urlsplit(link).path.rstrip("/").rsplit("/", 1)[-1])
        if FILE_NAME.match(name) and name not in names:
            names.append(name)
    return names


def in_nlm_order(folder: str, names: list[str]) -> list[RemoteFile]:
    """``names`` of ``folder`` as RemoteFiles, sorted by release and number."""
    if folder not in FOLDERS:
        raise ValueError(f"{folder!r} is not one of NLM's folders ({', '.join(FOLDERS)})")
    files = []
    for name in names:
        match = FILE_NAME.match(name)
        if match:
            files.append(
                RemoteFile(FOLDERS.index(folder), int(match[1]), number=int(match[2]), folder=folder, name=name)
            )
    return sorted(files)


def parse_md5(text: str, name: str) -> str:
    """The checksum ``text`` (NLM's ``MD5(NAME)= HEX`` or md5sum's ``HEX  NAME``) gives for ``name``, lower case.
    MirrorError when it names another file or is not a checksum file."""
    for line in text.strip().splitlines():
        match = _MD5_NLM.match(line.strip()) or _MD5_SUM.match(line.strip())
        if match and match["name"].strip() == name:
            return match["hex"].lower()
        if match:
            raise MirrorError(f"{name}.md5 gives the checksum of another file ({match['name'].strip()})")
    raise MirrorError(f"{name}.md5 is not a checksum file ({text.strip()[:60]!r})")


def md5_of(path: Path) -> str:
    digest = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as stream:
        while block := stream.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


class Remote(Protocol):
    """How a request is made (politely: rate-limited and retried, tools/evidence/remote_calls.py): ``call()``'s
    result, whatever it is."""

    def __call__(self, call: Callable[[], T], /) -> T: ...


def _direct(call: Callable[[], T]) -> T:
    return call()


class Mirror:
    """``base_url`` (ending in the folder above ``baseline/``) read politely: one request at a time, naming AMG."""

    def __init__(self, base_url: str, user_agent: str, remote: Remote | None = None):
        if urlsplit(base_url).scheme not in ("http", "https") or not urlsplit(base_url).netloc:
            raise ValueError(f"PubMed mirror {base_url!r} is not an http(s) URL")
        self.base_url = base_url.rstrip("/") + "/"
        self.user_agent, self.remote = user_agent, remote or _direct

    def url(self, folder: str, name: str = "") -> str:
        return f"{self.base_url}{folder}/{name}"

    def listing(self, folder: str) -> list[RemoteFile]:
        try:
            page = self.remote(lambda: self._get(self.url(folder)))
        except MirrorError as exc:
            hint = f"is {self.base_url} the folder holding NLM's baseline/ and updatefiles/?"
            raise MirrorError(f"PubMed mirror: no listing of {folder}/ ({exc}); {hint}") from None
        return in_nlm_order(folder, listed_files(page.decode("utf-8", errors="replace")))

    def md5(self, file: RemoteFile) -> str:
        text = self.remote(lambda: self._get(self.url(file.folder, file.name + ".md5")))
        return parse_md5(text.decode("utf-8", errors="replace"), file.name)

    def download(self, file: RemoteFile, partial: Path, on_bytes: Callable[[int, int | None], None]) -> None:
        """``file`` into ``partial``, continuing what it holds; ``on_bytes(received, total)`` as it arrives."""
        self.remote(lambda: self._continue(self.url(file.folder, file.name), partial, on_bytes))

    def _request(self, url: str, headers: dict[str, str] | None = None):
        request = urllib.request.Request(url, headers={"User-Agent": self.user_agent, **(headers or {})})
        try:
            return urllib.request.urlopen(request, timeout=TIMEOUT_S)
        except urllib.error.HTTPError as exc:
            if exc.code == 429 or exc.code >= 500 or exc.code == 416:
                raise  # transient (the caller's policy retries it), or handled by _continue
            raise MirrorError(f"{url}: HTTP {exc.code} {exc.reason}") from None

    def _get(self, url: str) -> bytes:
        with self._request(url) as response:
            return _read_all(response)

    def _continue(self, url: str, partial: Path, on_bytes: Callable[[int, int | None], None]) -> None:
        have = partial.stat().st_size if partial.exists() else 0
        try:
            response = self._request(url, {"Range": f"bytes={have}-"} if have else None)
        except urllib.error.HTTPError as exc:
            if exc.code != 416:
                raise
            partial.unlink(missing_ok=True)  # the partial file is longer than the file: start again
            raise TruncatedTransfer(f"{url}: the partial download was longer than the file; starting again") from None
        with response:
            resumed = response.status == 206
            if resumed and not response.headers.get("Content-Range", "").startswith(f"bytes {have}-"):
                raise MirrorError(f"{url}: the server resumed at another byte than asked ({have})")
            length = response.headers.get("Content-Length")
            expected = int(length) if length and length.isdigit() else None
            total = (have if resumed else 0) + expected if expected is not None else None
            received = have if resumed else 0
            with open(partial, "ab" if resumed else "wb") as out:
                on_bytes(received, total)
                while block := _read_block(response):
                    out.write(block)
                    received += len(block)
                    on_bytes(received, total)
                out.flush()
            if total is not None and received < total:
                raise TruncatedTransfer(f"{url}: the transfer ended at byte {received:,} of {total:,}")


def _read_block(response) -> bytes:
    try:  # read1: what has arrived, up to CHUNK, so progress shows and a kill loses little
        return response.read1(CHUNK) if hasattr(response, "read1") else response.read(CHUNK)
    except (http.client.IncompleteRead, OSError) as exc:  # the bytes so far are kept, then resumed
        raise TruncatedTransfer(f"the transfer broke off ({type(exc).__name__})") from None


def _read_all(response) -> bytes:
    blocks = []
    while block := _read_block(response):
        blocks.append(block)
    return b"".join(blocks)
