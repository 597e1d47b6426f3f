"""``amg pubmed sync``: NLM's baseline and update files mirrored into the local index, each file once.

Files are taken in NLM's order (the baseline by number, then the update files by number), skipping
those the ledger (``AMG_DATA_DIR/pubmed/sync.sqlite``) lists as ingested. Each file is downloaded to
``downloads/NAME.partial`` (a partial file from an interrupted run is continued), checked against its
``.md5``, renamed to ``NAME`` and only then ingested (tools/literature/ingest.py: idempotent, so a run
killed while ingesting ingests the file again and loses nothing), entered in the ledger with its MD5,
and removed. A file whose MD5 does not match is refused and removed, so the next run fetches it again.
The first file that fails ends the run: the ones after it wait, so updates are never applied out of order.
One sync at a time per index (``sync.lock``); a second one is told so at once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict

from filelock import FileLock, Timeout

from amg.tools.literature.index import LiteratureIndex
from amg.tools.literature.ingest import ingest_files
from amg.tools.literature.mirror import FOLDERS, Mirror, RemoteFile, md5_of
from amg.tools.literature.record_store import connect_wal

LEDGER = """CREATE TABLE IF NOT EXISTS files (
  name TEXT PRIMARY KEY, folder TEXT NOT NULL, md5 TEXT NOT NULL, bytes INTEGER NOT NULL, ingested_at TEXT NOT NULL
)"""


class SyncBusy(RuntimeError):
    """Another sync holds this index."""


@dataclass
class SyncReport:
    listed: int = 0
    fetched: list[str] = field(default_factory=list)  # downloaded (or found complete), verified and ingested
    skipped: int = 0  # already in the ledger
    failed: dict[str, str] = field(default_factory=dict)  # name -> what went wrong
    waiting: int = 0  # not tried: a file before them failed
    bytes: int = 0  # downloaded this run
    added: int = 0
    revised: int = 0
    deleted: int = 0
    retracted: int = 0

    def as_dict(self) -> SyncSummary:
        return SyncSummary(
            listed=self.listed,
            fetched=len(self.fetched),
            skipped=self.skipped,
            failed=self.failed,
            waiting=self.waiting,
            bytes=self.bytes,
            added=self.added,
            revised=self.revised,
            deleted=self.deleted,
            retracted=self.retracted,
            fetched_files=self.fetched,
        )


class SyncSummary(TypedDict):
    """A ``SyncReport`` as JSON: files fetched counted, and named under ``fetched_files``."""

    listed: int
    fetched: int
    skipped: int
    failed: dict[str, str]
    waiting: int
    bytes: int
    added: int
    revised: int
    deleted: int
    retracted: int
    fetched_files: list[str]


class SyncProgress:
    """What the caller shows while a sync runs (the CLI: tqdm bars); every method may be left as it is."""

    def start(self, files: list[RemoteFile]) -> None: ...
    def phase(self, file: RemoteFile, what: str, total: int | None) -> None: ...
    def position(self, done: int, total: int | None) -> None: ...
    def finished(self, file: RemoteFile) -> None: ...


class Ledger:
    """The files ingested, with their MD5: a file listed here is never fetched or ingested again."""

    def __init__(self, path: Path):
        self.db = connect_wal(path)
        self.db.execute(LEDGER)

    def names(self) -> set[str]:
        return {row[0] for row in self.db.execute("SELECT name FROM files")}

    def add(self, file: RemoteFile, md5: str, size: int) -> None:
        at = datetime.now(UTC).isoformat(timespec="seconds")
        with self.db:
            row = (file.name, file.folder, md5, size, at)
            self.db.execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?)", row)

    def last(self) -> tuple[str, str] | None:
        """(name, ingested_at) of the newest update file ingested, else of the newest baseline file."""
        row = self.db.execute(
            "SELECT name, ingested_at FROM files ORDER BY folder = 'updatefiles' DESC, name DESC LIMIT 1"
        ).fetchone()
        return (row[0], row[1]) if row else None

    def close(self) -> None:
        self.db.close()


def sync(index: LiteratureIndex, mirror: Mirror, *, baseline: bool, progress: SyncProgress | None = None) -> SyncReport:
    """Bring ``index`` up to the mirror: the baseline too when ``baseline``, else the update files."""
    progress = progress or SyncProgress()
    lock = FileLock(str(index.path / "sync.lock"))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise SyncBusy(f"another `amg pubmed sync` is running on {index.path}; this one stops") from None
    ledger = Ledger(index.path / "sync.sqlite")
    try:
        return _sync(index, mirror, ledger=ledger, folders=FOLDERS if baseline else FOLDERS[1:], progress=progress)
    finally:
        ledger.close()
        lock.release()


def _sync(index, mirror: Mirror, *, ledger: Ledger, folders, progress: SyncProgress) -> SyncReport:
    report = SyncReport()
    listed = [file for folder in folders for file in mirror.listing(folder)]
    done = ledger.names()
    todo = [file for file in sorted(listed) if file.name not in done]
    report.listed, report.skipped = len(listed), len(listed) - len(todo)
    downloads = index.path / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    progress.start(todo)
    for n, file in enumerate(todo):
        try:
            problem = _one_file(
                index, mirror, ledger=ledger, file=file, downloads=downloads, progress=progress, report=report
            )
        except (OSError, RuntimeError) as exc:  # after the caller's retries; a part received is resumed next time
            problem = f"not fetched: {' '.join(str(exc).split())[:200]}"
        if problem:
            report.failed[file.name] = problem
            report.waiting = len(todo) - n - 1
            break
        report.fetched.append(file.name)
        progress.finished(file)
    return report


def _one_file(
    index, mirror: Mirror, *, ledger: Ledger, file: RemoteFile, downloads: Path, progress, report
) -> str | None:
    """Fetch, verify, ingest and enter ``file``; what went wrong, or None."""
    expected = mirror.md5(file)
    path, partial = downloads / file.name, downloads / (file.name + ".partial")
    if not (path.exists() and md5_of(path) == expected):  # else: complete from a run killed while ingesting
        before = partial.stat().st_size if partial.exists() else 0
        progress.phase(file, "download", None)
        mirror.download(file, partial, progress.position)
        report.bytes += max(partial.stat().st_size - before, 0)
        got = md5_of(partial)
        if got != expected:
            partial.unlink()
            return (
                f"refused: its MD5 did not match ({got} received, {expected} in {file.name}.md5); "
                "it is fetched again next time"
            )
        os.replace(partial, path)
    size, read = path.stat().st_size, [0]
    progress.phase(file, "ingest", size)

    def bytes_read(n: int) -> None:
        read[0] += n
        progress.position(read[0], size)

    ingested = ingest_files(index, [path], progress=lambda _path, _size: bytes_read)
    if ingested.failed_files:  # verified, yet not PubMed XML to its end: NLM's file itself is bad
        return f"not read to its end: {next(iter(ingested.failed_files.values()))}"
    report.added += ingested.added
    report.revised += ingested.updated
    report.deleted += ingested.deleted
    report.retracted += ingested.retracted
    ledger.add(file, expected, size)
    path.unlink()
    return None
