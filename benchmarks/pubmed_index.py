"""The local PubMed index at scale: ingest rate, size on disk, peak memory and query latency as it grows.

    python -m benchmarks.pubmed_index [--steps 100000,300000,1000000] [--queries 200]

Synthetic records are recombined from the real corpus's sentences (``../shared/data/pubmed-corpus.jsonl``;
sections keep their labels, MeSH terms and years are drawn from the corpus), with PMIDs from 90,000,000
up, outside PubMed's range. Each step is ingested by ``amg ingest pubmed`` in its own process (its peak
RSS is that process's); queries are the PubMedQA dev questions, run in this process through the index.
Goals on this machine: ≥ 2,000 records/s, query p50 ≤ 20 ms and p95 ≤ 100 ms at 1M, RSS ≤ 1.5 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from amg.tools.literature.index import LiteratureIndex, index_path
from benchmarks.report import SHARED_DATA

FIRST_PMID = 90_000_000
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])")


def sentence_pools(corpus: Path) -> tuple[dict[str, list[str]], list[str], list[int]]:
    pools: dict[str, list[str]] = {}
    mesh, years = set(), []
    for line in corpus.open(encoding="utf-8"):
        row = json.loads(line)
        mesh.update(row.get("mesh") or [])
        if str(row.get("year", "")).isdigit():
            years.append(int(row["year"]))
        for section in row["sections"]:
            pools.setdefault(section["label"] or "", []).extend(SENTENCE.split(section["text"]))
    return pools, sorted(mesh), years


def write_synthetic(path: Path, start: int, count: int, pools, mesh, years, seed: int) -> None:
    rng = random.Random(seed)
    labels = [label for label, sentences in pools.items() if len(sentences) >= 50]
    with path.open("w", encoding="utf-8") as out:
        for pmid in range(start, start + count):
            chosen = rng.sample(labels, k=min(len(labels), rng.randint(2, 4)))
            sections = [{"label": label, "text": " ".join(rng.sample(pools[label], k=rng.randint(2, 4)))}
                        for label in chosen]  # fmt: skip
            title = rng.choice(pools[chosen[0]])[:160]
            out.write(json.dumps({"pmid": str(pmid), "year": rng.choice(years), "title": title,
                                  "mesh": rng.sample(mesh, k=5), "sections": sections}) + "\n")  # fmt: skip


def ingest_step(path: Path, data_dir: Path) -> tuple[float, float, str]:
    """Seconds and peak RSS (MB) of one ``amg ingest pubmed`` process, and its closing report line."""
    env = {**os.environ, "AMG_DATA_DIR": str(data_dir)}
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "amg.cli.main", "ingest", "pubmed", str(path)], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    report = child.stdout.read().strip().splitlines()[0] if child.stdout else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"ingest failed: {report}")
    return seconds, usage.ru_maxrss / 1024, report


def query_latency(data_dir: Path, questions: list[str], min_year: int | None = None) -> tuple[float, float]:
    index = LiteratureIndex(index_path(data_dir))
    try:
        index.search(questions[0], 10)  # open the searcher once
        times = []
        for question in questions:
            started = time.perf_counter()
            hits = index.search(question, 10, min_year=min_year)
            index.fetch([h.pmid for h in hits])
            times.append((time.perf_counter() - started) * 1000)
    finally:
        index.close()
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="100000,300000,1000000", help="index sizes to measure at")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", help="folder for the files and index (default: a temporary one, removed)")
    args = parser.parse_args(argv)
    steps = [int(s) for s in args.steps.split(",")]
    pools, mesh, years = sentence_pools(SHARED_DATA / "pubmed-corpus.jsonl")
    questions = [json.loads(line)["question"] for line in (SHARED_DATA / "pubmedqa-dev.jsonl").open()]
    questions = (questions * (1 + args.queries // len(questions)))[: args.queries]
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        work = Path(tmp)
        rows, held, ingest_s, peak_rss = [], 0, 0.0, 0.0
        for step, size in enumerate(steps):
            part = work / f"synthetic-{step}.jsonl"
            write_synthetic(part, FIRST_PMID + held, size - held, pools, mesh, years, args.seed + step)
            seconds, rss, report = ingest_step(part, work / "home")
            part.unlink()
            ingest_s, peak_rss = ingest_s + seconds, max(peak_rss, rss)
            p50, p95 = query_latency(work / "home", questions)
            p50_year, p95_year = query_latency(work / "home", questions, min_year=2000)
            disk = sum(f.stat().st_size for f in (work / "home" / "pubmed").rglob("*") if f.is_file())
            rows.append({"records": size, "ingest_records_per_s": round((size - held) / seconds),
                         "disk_mb": round(disk / 2**20), "ingest_peak_rss_mb": round(rss), "query_p50_ms": round(p50, 1),
                         "query_p95_ms": round(p95, 1), "query_p50_ms_since_2000": round(p50_year, 1),
                         "query_p95_ms_since_2000": round(p95_year, 1)})  # fmt: skip
            print(f"{size:>9,} records  {report}", file=sys.stderr)
            held = size
    print(f"{'records':>9}  {'ingest rec/s':>12}  {'disk MB':>8}  {'peak RSS MB':>11}  {'p50 ms':>7}  {'p95 ms':>7}  "
          f"{'p50/p95 ms, year >= 2000':>24}")  # fmt: skip
    for r in rows:
        print(f"{r['records']:>9,}  {r['ingest_records_per_s']:>12,}  {r['disk_mb']:>8,}  {r['ingest_peak_rss_mb']:>11,}  "
              f"{r['query_p50_ms']:>7}  {r['query_p95_ms']:>7}  {r['query_p50_ms_since_2000']:>11} / "
              f"{r['query_p95_ms_since_2000']}")  # fmt: skip
    last = rows[-1]
    print(json.dumps({"benchmark": "pubmed_index", "records": last["records"], "queries": len(questions),
                      "ingest_records_per_s": round(held / ingest_s), "disk_mb": last["disk_mb"],
                      "peak_rss_mb": round(peak_rss), "query_p50_ms": last["query_p50_ms"],
                      "query_p95_ms": last["query_p95_ms"], "growth": rows}))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
