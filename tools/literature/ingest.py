"""``amg ingest pubmed``: PubMed XML (baseline and update files, ``.xml``/``.xml.gz``) and JSON lines into
the local index, streamed in batches.

Idempotent (a record already held with the same content is left alone), resumable (each batch is
durable once written; a rerun after kill -9 skips what is held and writes the rest), ordered by
revision (a record older than the one held is skipped), deletions remove. One ingest at a time per
index: a second one waits for the first. A bad file is reported and the next one is read.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TypedDict

from filelock import FileLock, Timeout

from amg.tools.literature.byte_stream import ByteStream
from amg.tools.literature.index import LiteratureIndex
from amg.tools.literature.jsonl_records import read_jsonl
from amg.tools.literature.pubmed_xml import Article, Deletion, NotPubMedXML, Skipped, read_articles
from amg.tools.literature.record_store import digest, encoded

BATCH = 20_000  # records per commit: a kill -9 loses at most this much reading, never a write
GZIP_MAGIC = b"\x1f\x8b"


class IngestSummary(TypedDict):
    files: int
    added: int
    updated: int
    deleted: int
    retracted: int
    skipped: int
    skip_reasons: dict[str, int]
    failed_files: dict[str, str]


@dataclass
class IngestReport:
    added: int = 0
    updated: int = 0
    deleted: int = 0
    retracted: int = 0  # records read with PubMed's retraction marks (new, or revised to carry them)
    skipped: Counter = field(default_factory=Counter)  # reason -> count
    failed_files: dict[str, str] = field(default_factory=dict)  # path -> what is wrong with it
    files: int = 0

    def as_dict(self) -> IngestSummary:
        return {
            "files": self.files,
            "added": self.added,
            "updated": self.updated,
            "deleted": self.deleted,
            "retracted": self.retracted,
            "skipped": sum(self.skipped.values()),
            "skip_reasons": dict(self.skipped.most_common()),
            "failed_files": self.failed_files,
        }


class CountingReader:
    """A binary file that counts the bytes read from disk (the progress bar's position)."""

    def __init__(self, raw: IO[bytes], on_read: Callable[[int], None]):
        self.raw, self.on_read = raw, on_read

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size)
        self.on_read(len(data))
        return data

    def readline(self, size: int = -1) -> bytes:
        data = self.raw.readline(size)
        self.on_read(len(data))
        return data


def ingest_files(
    index: LiteratureIndex,
    paths: list[Path],
    *,
    progress: Callable[[Path, int], Callable[[int], None]],
    on_wait: Callable[[], None] = lambda: None,
    any_paper: bool = False,
) -> IngestReport:
    """Read every file in ``paths`` into ``index``; ``progress(path, size)`` returns a bytes-read callback.
    ``any_paper``: JSON lines may hold papers of any scheme (SciFact's corpus, DOIs), not only PubMed records."""
    report = IngestReport()
    lock = FileLock(str(index.path / "ingest.lock"))
    try:
        lock.acquire(timeout=0.5)
    except Timeout:
        on_wait()
        lock.acquire()
    try:
        in_step = index.in_step()  # else an earlier ingest was killed mid-batch: replace every PMID written
        index.records.backfill_status()  # once per index stored before retractions were kept
        for path in paths:
            report.files += 1
            try:
                with open(path, "rb") as raw:
                    counted = CountingReader(raw, progress(path, path.stat().st_size))
                    _ingest_stream(index, _records(counted, path, any_paper), report=report, in_step=in_step)
            except (OSError, EOFError, zlib.error, NotPubMedXML) as exc:
                report.failed_files[str(path)] = _describe(exc)
    finally:
        index.fulltext.close_writer()
        lock.release()
    return report


def _records(stream: CountingReader, path: Path, any_paper: bool = False) -> Iterator[Article | Deletion | Skipped]:
    head = stream.raw.peek(2)[:2] if hasattr(stream.raw, "peek") else b""
    source: ByteStream = Gunzip(stream) if head == GZIP_MAGIC else stream
    first = _first_byte(source)
    if first == b"<":
        return read_articles(_Prefixed(first, source))
    if first == b"{":
        return read_jsonl(_Prefixed(first, source), any_paper)
    if first == b"":
        raise NotPubMedXML("empty file")
    if any_paper:
        raise NotPubMedXML('not PubMed XML (<PubmedArticleSet>) or JSON lines ({"pmid"|"doc_id"|"doi": …})')
    raise NotPubMedXML('not PubMed XML (<PubmedArticleSet>) or JSON lines ({"pmid": …})')


def _ingest_stream(index: LiteratureIndex, items: Iterator, *, report: IngestReport, in_step: bool) -> None:
    batch: list = []
    try:
        for item in items:
            batch.append(item)
            if len(batch) >= BATCH:
                _write_batch(index, batch, report=report, in_step=in_step)
                batch = []
    finally:  # what was read before a fault in the file is kept
        if batch:
            _write_batch(index, batch, report=report, in_step=in_step)


def _write_batch(index: LiteratureIndex, batch: list, *, report: IngestReport, in_step: bool) -> None:
    keys = [item.key for item in batch if not isinstance(item, Skipped)]
    held, gone = index.records.known(keys), index.records.deleted(keys)
    withdrawn = index.records.statuses([k for k in keys if k.isdigit()])  # a status is a PubMed paper's
    state: dict[str, tuple[str, str] | None] = dict(held)
    pending: dict[str, Article] = {}
    bodies: dict[str, bytes] = {}
    deletes: set[str] = set()
    changes: dict[str, str] = {}  # what the graph must hear of: a paper it may have learned from changed
    for item in batch:
        if isinstance(item, Skipped):
            report.skipped[item.reason] += 1
        elif isinstance(item, Deletion):
            if withdrawn.get(item.pmid) != "deleted":  # held or not: the graph may know the paper from NCBI
                changes[item.pmid] = "deleted"
            if state.get(item.key) is None:
                report.skipped["deletion of a PMID not held"] += 1
                continue
            pending.pop(item.pmid, None)
            deletes.add(item.pmid)
            state[item.pmid] = None
            report.deleted += 1
        else:
            current = state.get(item.key)
            body = encoded(item)
            dig = digest(body)
            if item.key in gone:
                report.skipped["deleted by an update file"] += 1
            elif current is not None and current[0] == dig:
                report.skipped["already held, unchanged"] += 1
            elif current is not None and item.revised < current[1]:
                report.skipped["older revision than the one held"] += 1
            else:
                pending[item.key], bodies[item.key] = item, body
                deletes.discard(item.key)
                if current is None:
                    report.added += 1
                else:
                    report.updated += 1
                if item.retracted and item.pmid:
                    report.retracted += 1
                    changes[item.pmid] = "retracted"
                elif item.pmid and (current is not None or item.pmid in withdrawn or item.pmid in changes):
                    changes[item.pmid] = "revised"  # a new paper is news only when it had been withdrawn
                state[item.key] = (dig, item.revised)
    if pending or deletes or changes:
        index.write(
            list(pending.values()), sorted(deletes), held=set(held) if in_step else None, bodies=bodies, changes=changes
        )


class Gunzip:
    """A gzip stream decompressed as it is read. Unlike ``gzip.GzipFile``, everything before damage or a
    truncation is returned before the error is raised, so the records it holds are kept."""

    def __init__(self, raw: CountingReader):
        self.raw, self.inflate, self.buffer = raw, zlib.decompressobj(16 + zlib.MAX_WBITS), b""
        self.fault: BaseException | None = None

    def _fill(self, wanted: int, line: bool = False) -> None:
        while self.fault is None and (wanted < 0 or len(self.buffer) < wanted) and not (line and b"\n" in self.buffer):
            if self.inflate.eof:  # a file of several gzip members (as `cat a.gz b.gz` makes)
                rest = self.inflate.unused_data
                if not rest and not (rest := self.raw.read(1 << 16)):
                    return
                self.inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
                chunk = rest
            else:
                chunk = self.raw.read(1 << 16)
            if not chunk:
                self.fault = EOFError("compressed file ended before the end-of-stream marker was reached")
                return
            try:
                self.buffer += self.inflate.decompress(chunk)
            except zlib.error as exc:
                self.fault = exc

    def _take(self, size: int) -> bytes:
        if not self.buffer and self.fault is not None:
            raise self.fault
        size = len(self.buffer) if size < 0 else size
        out, self.buffer = self.buffer[:size], self.buffer[size:]
        return out

    def read(self, size: int = -1) -> bytes:
        self._fill(size)
        return self._take(size)

    def readline(self, size: int = -1) -> bytes:
        self._fill(size, line=True)
        end = self.buffer.find(b"\n") + 1 or len(self.buffer)
        return self._take(min(end, size) if size >= 0 else end)


def _first_byte(stream: ByteStream) -> bytes:
    while True:
        byte = stream.read(1)
        if not byte or not byte.isspace():
            return byte


class _Prefixed:
    """``stream`` with ``prefix`` put back in front (the sniffed first byte)."""

    def __init__(self, prefix: bytes, stream: ByteStream):
        self.prefix, self.stream = prefix, stream

    def read(self, size: int = -1) -> bytes:
        head, self.prefix = self.prefix, b""
        if size is None or size < 0:
            return head + self.stream.read()
        return head + self.stream.read(size - len(head)) if size > len(head) else head

    def readline(self, size: int = -1) -> bytes:
        head, self.prefix = self.prefix, b""
        if head.endswith(b"\n"):
            return head
        rest = self.stream.readline(size - len(head) if size and size > 0 else -1)
        return head + rest


def _describe(exc: BaseException) -> str:
    if isinstance(exc, (EOFError, zlib.error)):
        return f"damaged or truncated gzip ({exc}); the records before the damage were kept"
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, IsADirectoryError):
        return "a folder, not a file"
    return str(exc) if isinstance(exc, NotPubMedXML) else f"{type(exc).__name__}: {exc}"
