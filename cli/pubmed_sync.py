"""``amg pubmed sync``: NLM's baseline and update files mirrored into the local index, then the graph told
which papers it cites were retracted, deleted or revised (graphs/literature_sync.py)."""

from __future__ import annotations

import sys
from collections.abc import Callable

from tqdm import tqdm

from amg.graphs.context import Context
from amg.graphs.literature_sync import apply_to_graph, sync_index
from amg.graphs.resources import Resources
from amg.tools.kg.store.protocols import LiteratureChanges
from amg.tools.literature.mirror import RemoteFile
from amg.tools.literature.sync import SyncBusy, SyncProgress, SyncReport


class Bars(SyncProgress):
    """A bar of files and, below it, one of the current file's bytes (downloaded, then ingested)."""

    def __init__(self):
        self.files: tqdm | None = None
        self.bytes: tqdm | None = None

    def start(self, files: list[RemoteFile]) -> None:
        self.files = tqdm(total=len(files), desc="pubmed sync", unit=" files", file=sys.stderr, disable=None)

    def phase(self, file: RemoteFile, what: str, total: int | None) -> None:
        if self.bytes is not None:
            self.bytes.close()
        desc = f"{what} {file.name}"
        self.bytes = tqdm(total=total, desc=desc, unit="B", unit_scale=True, leave=False, file=sys.stderr, disable=None)

    def position(self, done: int, total: int | None) -> None:
        if self.bytes is not None:
            if total and self.bytes.total != total:
                self.bytes.total = total
            self.bytes.update(done - self.bytes.n)

    def finished(self, file: RemoteFile) -> None:
        if self.files is not None:
            self.files.update(1)

    def close(self) -> None:
        for bar in (self.bytes, self.files):
            if bar is not None:
                bar.close()


def run(args, context: Context) -> int:
    res = Resources(context)
    try:
        return sync_and_report(args, context, lambda: res.store)
    finally:
        res.close()


def sync_and_report(args, context: Context, graph: Callable[[], LiteratureChanges]) -> int:
    """Sync the index (``args.base_url``, ``args.baseline``), print the report, then tell the graph (``graph()``:
    opened only once the index is synced, so a graph that is down costs no download)."""
    bars = Bars()
    try:
        report = sync_index(context, args.base_url, baseline=args.baseline, progress=bars)
    except SyncBusy as exc:
        print(f"amg: {exc}", file=sys.stderr)
        return 3
    finally:
        bars.close()
    for line in report_lines(report, args.base_url or context.pubmed_mirror):
        print(line, flush=True)
    changes = apply_to_graph(context, graph())
    print(
        f"graph: {changes.get('papers_withdrawn', 0)} paper(s) it cites withdrawn "
        f"({changes.get('relations_weakened', 0)} relation(s) weakened, history kept), "
        f"{changes.get('queued_for_reread', 0)} revised paper(s) queued for `amg refresh` to re-read"
    )
    return 1 if report.failed else 0


def report_lines(report: SyncReport, source: str) -> list[str]:
    """The closing report: files fetched / skipped / failed, then records added / revised / deleted / retracted."""
    lines = [
        f"PubMed sync from {source}: {len(report.fetched)} file(s) fetched and ingested, "
        f"{report.skipped} already ingested, {len(report.failed)} failed"
        + (f", {report.waiting} waiting behind it" if report.waiting else ""),
        f"records: added {report.added:,}, revised {report.revised:,}, deleted {report.deleted:,}, "
        f"retracted {report.retracted:,} ({report.bytes / 2**20:,.1f} MB downloaded)",
    ]
    lines += [f"  failed: {name}: {problem}" for name, problem in report.failed.items()]
    return lines
