"""The local PubMed index at scale: ingest rate, size on disk, peak memory and query latency as it grows.

    python -m benchmarks.pubmed_index [--steps 100000,300000,1000000] [--queries 200]

Synthetic records are recombined from the real corpus's sentences (``../shared/data/pubmed-corpus.jsonl``;
sections keep their labels, MeSH terms and years are drawn from the corpus), with PMIDs from 90,000,000
up, outside PubMed's range; the 1,000 real abstracts are ingested first. Each step is ingested by
``amg ingest pubmed`` in its own process (its peak RSS is that process's); queries are the PubMedQA dev
questions, run in this process through the index, and the gold PMID's recall@5 among ever more
distractors (made of the gold abstracts' own sentences) is reported per step. ``--rerank N`` also
measures re-ranking BM25's top N by the embedder's similarity at query time (quality and latency).
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
from amg.tools.vectors.embeddings import embed, model_path
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
            sections = [
                {"label": label, "text": " ".join(rng.sample(pools[label], k=rng.randint(2, 4)))} for label in chosen
            ]
            title = rng.choice(pools[chosen[0]])[:160]
            out.write(
                json.dumps(
                    {
                        "pmid": str(pmid),
                        "year": rng.choice(years),
                        "title": title,
                        "mesh": rng.sample(mesh, k=5),
                        "sections": sections,
                    }
                )
                + "\n"
            )


def ingest_step(path: Path, data_dir: Path) -> tuple[float, float, str]:
    """Seconds and peak RSS (MB) of one ``amg ingest pubmed`` process, and its closing report line."""
    env = {**os.environ, "AMG_DATA_DIR": str(data_dir)}
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "amg.cli.main", "ingest", "pubmed", str(path)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    report = child.stdout.read().strip().splitlines()[0] if child.stdout else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"ingest failed: {report}")
    return seconds, usage.ru_maxrss / 1024, report


def query_latency(
    data_dir: Path, questions: list[dict], min_year: int | None = None, rerank: int = 0
) -> tuple[float, float, float]:
    """p50 and p95 ms of a top-10 search and fetch, and the gold PMID's recall@5."""
    index = LiteratureIndex(index_path(data_dir))
    try:
        index.search(questions[0]["question"], 10)  # open the searcher once
        times, found = [], 0
        for row in questions:
            started = time.perf_counter()
            hits = index.search(row["question"], rerank or 10, min_year=min_year)
            articles = index.fetch([h.pmid for h in hits])
            if rerank:
                articles = reranked(row["question"], articles)
            times.append((time.perf_counter() - started) * 1000)
            found += bool(set(row["pmids"]) & {a.pmid for a in articles[:5]})
    finally:
        index.close()
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))], found / len(questions)


def reranked(question: str, articles: list) -> list:
    """``articles`` ordered by the embedder's cosine similarity of their opening (conclusion first) to ``question``."""
    vectors = embed(
        str(model_path("minilm", Path.home())), [question] + [a.conclusion_first()[:1000] for a in articles]
    )
    scores = [sum(q * d for q, d in zip(vectors[0], v)) for v in vectors[1:]]
    return [a for _, a in sorted(zip(scores, articles), key=lambda pair: -pair[0])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="100000,300000,1000000", help="index sizes to measure at")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", help="folder for the files and index (default: a temporary one, removed)")
    parser.add_argument("--rerank", type=int, default=0, help="also measure re-ranking BM25's top N by the embedder")
    args = parser.parse_args(argv)
    steps = [int(s) for s in args.steps.split(",")]
    pools, mesh, years = sentence_pools(SHARED_DATA / "pubmed-corpus.jsonl")
    questions = [json.loads(line) for line in (SHARED_DATA / "pubmedqa-dev.jsonl").open()]
    questions = (questions * (1 + args.queries // len(questions)))[: args.queries]
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        work = Path(tmp)
        ingest_step(SHARED_DATA / "pubmed-corpus.jsonl", work / "home")
        rows, held, ingest_s, peak_rss = [], 0, 0.0, 0.0
        for step, size in enumerate(steps):
            part = work / f"synthetic-{step}.jsonl"
            write_synthetic(part, FIRST_PMID + held, size - held, pools, mesh, years, args.seed + step)
            seconds, rss, report = ingest_step(part, work / "home")
            part.unlink()
            ingest_s, peak_rss = ingest_s + seconds, max(peak_rss, rss)
            p50, p95, recall = query_latency(work / "home", questions)
            p50_year, p95_year, _ = query_latency(work / "home", questions, min_year=2000)
            disk = sum(f.stat().st_size for f in (work / "home" / "pubmed").rglob("*") if f.is_file())
            rows.append(
                {
                    "records": size,
                    "ingest_records_per_s": round((size - held) / seconds),
                    "disk_mb": round(disk / 2**20),
                    "ingest_peak_rss_mb": round(rss),
                    "query_p50_ms": round(p50, 1),
                    "query_p95_ms": round(p95, 1),
                    "query_p50_ms_since_2000": round(p50_year, 1),
                    "query_p95_ms_since_2000": round(p95_year, 1),
                    "gold_recall_at_5": round(recall, 3),
                }
            )
            print(f"{size:>9,} records  {report}", file=sys.stderr)
            held = size
        rerank = query_latency(work / "home", questions, rerank=args.rerank) if args.rerank else None
    print(
        f"{'records':>9}  {'ingest rec/s':>12}  {'disk MB':>8}  {'peak RSS MB':>11}  {'p50 ms':>7}  {'p95 ms':>7}  "
        f"{'p50/p95 ms, year >= 2000':>24}  gold recall@5"
    )
    for r in rows:
        print(
            f"{r['records']:>9,}  {r['ingest_records_per_s']:>12,}  {r['disk_mb']:>8,}  "
            f"{r['ingest_peak_rss_mb']:>11,}  "
            f"{r['query_p50_ms']:>7}  {r['query_p95_ms']:>7}  {r['query_p50_ms_since_2000']:>11} / "
            f"{r['query_p95_ms_since_2000']:<6}  {r['gold_recall_at_5']}"
        )
    if rerank:
        print(
            f"BM25 top {args.rerank} re-ranked by the embedder at {rows[-1]['records']:,}: p50 {rerank[0]:.0f} ms, "
            f"p95 {rerank[1]:.0f} ms, gold recall@5 {rerank[2]:.3f}"
        )
    last = rows[-1]
    print(
        json.dumps(
            {
                "benchmark": "pubmed_index",
                "records": last["records"],
                "queries": len(questions),
                "ingest_records_per_s": round(held / ingest_s),
                "disk_mb": last["disk_mb"],
                "peak_rss_mb": round(peak_rss),
                "query_p50_ms": last["query_p50_ms"],
                "query_p95_ms": last["query_p95_ms"],
                "gold_recall_at_5": last["gold_recall_at_5"],
                "rerank": {
                    "top": args.rerank,
                    "p50_ms": round(rerank[0]),
                    "p95_ms": round(rerank[1]),
                    "gold_recall_at_5": round(rerank[2], 3),
                }
                if rerank
                else None,
                "growth": rows,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
