"""``amg ingest pubmed FILE…``, ``amg ingest papers FILE…`` and ``amg search pubmed QUERY``: the local literature
index (PubMed records by PMID; with ``papers``, also SciFact's corpus and papers with a DOI)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TypedDict

from tqdm import tqdm

from amg.graphs.context import Context
from amg.tools.literature.index import LiteratureIndex, index_exists, index_path
from amg.tools.literature.ingest import ingest_files
from amg.tools.literature.paper_ids import label


def ingest(paths: list[str], context: Context, any_paper: bool = False) -> int:
    index = LiteratureIndex(index_path(context.data_path))
    bars: list[tqdm] = []

    def progress(path: Path, size: int):
        if bars:
            bars.pop().close()
        bar = tqdm(total=size, desc=path.name[-40:], unit="B", unit_scale=True, file=sys.stderr, disable=None)
        bars.append(bar)
        return bar.update

    def waiting():
        print("waiting for another ingest into this index to finish…", file=sys.stderr, flush=True)

    try:
        report = ingest_files(index, [Path(p) for p in paths], progress=progress, on_wait=waiting, any_paper=any_paper)
    finally:
        for bar in bars:
            bar.close()
        index.close()
    name = "Literature" if any_paper else "PubMed"
    print(
        f"{name} index {index.path}: {report.files} file(s); added {report.added:,}, updated {report.updated:,}, "
        f"deleted {report.deleted:,}, skipped {sum(report.skipped.values()):,}"
    )
    for reason, count in report.skipped.most_common():
        print(f"  skipped {count:,}: {reason}")
    for path, problem in report.failed_files.items():
        print(f"  file not read to its end: {path}: {problem}")
    return 1 if report.failed_files else 0


class SearchHit(TypedDict):
    pmid: str | None
    id: str
    title: str
    year: int | None
    journal: str | None
    score: float
    url: str


def search(query: str, k: int, *, as_json: bool, context: Context) -> int:
    if not index_exists(context.data_path):
        raise ValueError("no local PubMed index yet: build one with `amg ingest pubmed FILE…` (NLM XML or JSON lines)")
    index = LiteratureIndex(index_path(context.data_path))
    try:
        hits = index.search(query, k=max(1, min(k, 200)))
        articles = {a.key: a for a in index.fetch([h.key for h in hits])}
    finally:
        index.close()
    rows = [
        SearchHit(
            pmid=articles[h.key].pmid or None,
            id=articles[h.key].evidence_id,
            title=articles[h.key].display_title,
            year=articles[h.key].year,
            journal=articles[h.key].journal,
            score=round(h.score, 3),
            url=articles[h.key].url,
        )
        for h in hits
        if h.key in articles
    ]
    if as_json:
        print(json.dumps({"query": query, "results": rows}, ensure_ascii=False))
        return 0
    if not rows:
        print("no matching records")
    for rank, row in enumerate(rows, 1):
        print(f"[{rank}] {row['score']:.2f}  {label(row['id'])} ({row['year'] or 'n.d.'})  {row['title'][:90]}")
        print(f"    {row['url']}")
    return 0
