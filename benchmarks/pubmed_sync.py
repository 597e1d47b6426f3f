"""`amg pubmed sync`'s throughput: a generated tree in NLM's layout served by `python -m http.server` on loopback,
synced from nothing (the baseline, then the update files), each phase timed.

    python -m benchmarks.pubmed_sync [--files 4] [--records 10000] [--updates 1]

Baseline files hold ``--records`` each, recombined from the real corpus's sentences (``../shared/data/
pubmed-corpus.jsonl``: labelled sections, MeSH terms and years drawn from it; PMIDs from 60,000,000 up) and
written as NLM writes them (PubmedArticleSet, gzip, ``.md5``); each update file revises 5% of a baseline
file's records, deletes 0.5% and retracts 0.05%. Measured in this process: download (loopback, so the cost on
this machine, not the network's), MD5 verification and the verified ingest, in MB/s of gzipped files and
records/s; the sync's CPU time (wall-clock rates depend on what else the machine runs: its load average is
reported); peak RSS and the index's size. Prints a table and, last, one JSON line.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

from amg.testing.pubmed_mirror import article, deletion, serve, write_file
from amg.tools.literature.index import LiteratureIndex
from amg.tools.literature.mirror import Mirror, RemoteFile
from amg.tools.literature.sync import SyncProgress, sync
from benchmarks.pubmed_index import sentence_pools
from benchmarks.report import SHARED_DATA, emit

FIRST_PMID = 60_000_000


class Clock(SyncProgress):
    """Seconds spent per phase (download, md5, ingest), read off the sync's progress calls."""

    def __init__(self):
        self.seconds = {"download": 0.0, "md5": 0.0, "ingest": 0.0}
        self.phase_name, self.since = None, time.perf_counter()
        self.last = self.since

    def _switch(self, name: str | None) -> None:
        now = time.perf_counter()
        if self.phase_name:
            self.seconds[self.phase_name] += now - self.since
        self.phase_name, self.since = name, now

    def position(self, done: int, total: int | None) -> None:
        self.last = time.perf_counter()

    def phase(self, file: RemoteFile, what: str, total: int | None) -> None:
        if what == "ingest" and self.phase_name == "download":  # from the last byte to the ingest: MD5, rename
            now = time.perf_counter()
            self.seconds["download"] += self.last - self.since
            self.seconds["md5"] += now - self.last
            self.phase_name, self.since = "ingest", now
            return
        self._switch(what)

    def finished(self, file: RemoteFile) -> None:
        self._switch(None)


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def generate(root: Path, files: int, per_file: int, updates: int, seed: int) -> dict:
    """The tree; counts of records and bytes written."""
    rng = random.Random(seed)
    corpus = SHARED_DATA / "pubmed-corpus.jsonl"
    if corpus.exists():
        pools, mesh, years = sentence_pools(corpus)
    else:  # a checkout without the shared data: random words, the same shapes
        words = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 10))) for _ in range(20000)]
        pools = {label: [" ".join(rng.choices(words, k=18)) + "." for _ in range(500)] for label in ("", "RESULTS")}
        mesh, years = words[:500], list(range(1990, 2025))
    labels = [label for label, sentences in pools.items() if len(sentences) >= 50]

    def record(pmid: int, revised: str = "2024-01-01", types=("Journal Article",)) -> str:
        chosen = rng.sample(labels, k=min(len(labels), rng.randint(2, 4)))
        sections = [(label, " ".join(rng.sample(pools[label], k=rng.randint(2, 4)))) for label in chosen]
        title = rng.choice(pools[chosen[0]])[:160]
        return article(pmid, title, sections, rng.choice(years), revised, types, mesh=tuple(rng.sample(mesh, k=5)))

    for n in range(files):
        start = FIRST_PMID + n * per_file
        write_file(
            root, "baseline", f"pubmed25n{n + 1:04d}.xml.gz", [record(p) for p in range(start, start + per_file)]
        )
    for n in range(updates):
        start = FIRST_PMID + (n % files) * per_file
        revised = [record(p, "2025-01-01") for p in range(start, start + per_file // 20)]
        retracted = [
            record(start + per_file // 20 + i, "2025-01-01", ("Journal Article", "Retracted Publication"))
            for i in range(max(1, per_file // 2000))
        ]
        gone = deletion(*range(start + per_file // 10, start + per_file // 10 + per_file // 200))
        write_file(root, "updatefiles", f"pubmed25n{files + n + 1:04d}.xml.gz", revised + retracted + [gone])
    sizes = [p.stat().st_size for p in root.rglob("*.xml.gz")]
    return {"records": files * per_file, "gz_bytes": sum(sizes), "files": len(sizes)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=4, help="baseline files")
    parser.add_argument("--records", type=int, default=10_000, help="records per baseline file (NLM's: ~30,000)")
    parser.add_argument("--updates", type=int, default=1, help="update files")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="amg-pubmed-sync-") as tmp:
        work = Path(tmp)
        started = time.perf_counter()
        made = generate(work / "tree", args.files, args.records, args.updates, args.seed)
        generated_s = time.perf_counter() - started
        index, clock = LiteratureIndex(work / "data" / "pubmed"), Clock()
        with serve(work / "tree") as url:
            started, cpu = time.perf_counter(), _cpu_s()
            report = sync(index, Mirror(url, "AMG benchmark"), baseline=True, progress=clock)
            total_s, cpu_s, load = time.perf_counter() - started, _cpu_s() - cpu, os.getloadavg()[0]
        held = index.stats()
        index.close()
    if report.failed:
        raise SystemExit(f"sync failed: {report.failed}")
    mb = made["gz_bytes"] / 2**20
    read = report.added + report.revised + report.deleted
    figures = {
        "benchmark": "pubmed_sync",
        "files": made["files"],
        "records": made["records"],
        "records_read": read,
        "gz_mb": round(mb, 1),
        "download_mb_per_s": round(mb / clock.seconds["download"], 1),
        "md5_mb_per_s": round(mb / clock.seconds["md5"], 1),
        "ingest_records_per_s": round(read / clock.seconds["ingest"]),
        "ingest_gz_mb_per_s": round(mb / clock.seconds["ingest"], 2),
        "sync_records_per_s": round(read / total_s),
        "sync_gz_mb_per_s": round(mb / total_s, 2),
        "cpu_s": round(cpu_s, 1),  # this process's, all its threads (the loopback server's is not counted)
        "records_per_cpu_s": round(read / cpu_s),
        "load_average": round(load, 1),  # the machine's, at the end: wall-clock rates shrink as it grows
        "gz_bytes_per_record": round(made["gz_bytes"] / read),
        "index_bytes_per_record": round(held["bytes"] / held["records"]),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "seconds": {**{k: round(v, 2) for k, v in clock.seconds.items()}, "sync": round(total_s, 2)},
        "generated_s": round(generated_s, 1),
        "report": {k: getattr(report, k) for k in ("added", "revised", "deleted", "retracted")},
    }
    rows = [
        ("files (baseline + updates)", f"{made['files']} ({args.files} + {args.updates}), {mb:.1f} MB gzipped"),
        (
            "records read",
            f"{read:,} (added {report.added:,}, revised {report.revised:,}, "
            f"deleted {report.deleted:,}, retracted {report.retracted:,})",
        ),
        ("download, loopback", f"{figures['download_mb_per_s']} MB/s ({clock.seconds['download']:.2f} s)"),
        ("MD5 check", f"{figures['md5_mb_per_s']} MB/s ({clock.seconds['md5']:.2f} s)"),
        ("verified ingest", f"{figures['ingest_records_per_s']:,} records/s, {figures['ingest_gz_mb_per_s']} MB/s"),
        (
            "whole sync",
            f"{figures['sync_records_per_s']:,} records/s, {figures['sync_gz_mb_per_s']} MB/s ({total_s:.1f} s)",
        ),
        (
            "CPU time of the sync",
            f"{cpu_s:.1f} s: {figures['records_per_cpu_s']:,} records per CPU-second "
            f"(load average {load:.1f} on {os.cpu_count()} cores)",
        ),
        ("index on disk", f"{figures['index_bytes_per_record']:,} bytes/record"),
        ("peak RSS", f"{figures['peak_rss_mb']} MB"),
    ]
    emit(f"PubMed sync from a loopback mirror (seed {args.seed})", rows, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
