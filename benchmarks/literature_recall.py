"""Does the literature search find the paper a research question comes from? Gold-PMID recall on PubMedQA.

    python -m benchmarks.literature_recall [--limit N]

Ingests ``../shared/data/pubmed-corpus.jsonl`` (1,000 abstracts) into the local PubMed index of the data
dir (AMG_DATA_DIR; idempotent) and, for the 500 dev questions of ``pubmedqa-dev.jsonl``, reports the gold
PMID's recall in what the QA graph fetches for a research question with a claim gap (the question itself
as the query, ``CLAIM_PAPERS`` records, through the same evidence finder) and, for reference, recall@k of
the question as the query for k = 1, 3, 5, 10. No model is needed: research questions are told by their
options, and their search is the question.
"""

from __future__ import annotations

import argparse
import json
import sys

from amg.graphs.context import Context
from amg.graphs.qa_graph import CLAIM_PAPERS
from amg.graphs.resources import Resources
from amg.tools.literature.index import LiteratureIndex, index_path
from amg.tools.literature.ingest import ingest_files
from amg.tools.question_kinds import is_research_question
from benchmarks.report import SHARED_DATA, emit

DEPTHS = (1, 3, 5, 10)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="first N dev questions")
    args = parser.parse_args(argv)
    ctx = Context(pubmed="local", sources="pubmed")
    index = LiteratureIndex(index_path(ctx.data_path))
    ingest_files(index, [SHARED_DATA / "pubmed-corpus.jsonl"], progress=lambda path, size: lambda n: None)
    index.close()
    rows = [json.loads(line) for line in (SHARED_DATA / "pubmedqa-dev.jsonl").open(encoding="utf-8")]
    rows = rows[: args.limit] if args.limit else rows
    res = Resources(ctx)
    hits, research = {"claim_search": 0, **{f"question@{k}": 0 for k in DEPTHS}}, 0
    try:
        for row in rows:
            gold = set(row["pmids"])
            research += is_research_question(row["question"], row["options"])
            fetched = res.evidence.find_evidence(row["question"], ["pubmed"], k=CLAIM_PAPERS).records
            hits["claim_search"] += bool(gold & {r.pmid for r in fetched})
            ranked = [r.pmid for r in res.evidence.find_evidence(row["question"], ["pubmed"], k=max(DEPTHS)).records]
            for k in DEPTHS:
                hits[f"question@{k}"] += bool(gold & set(ranked[:k]))
    finally:
        res.close()
    n = len(rows)
    figures = {
        "benchmark": "literature_recall",
        "n": n,
        "research_questions": research,
        "claim_papers": CLAIM_PAPERS,
        "gold_recall_claim_search": round(hits["claim_search"] / n, 3),
        **{f"recall_at_{k}_question": round(hits[f"question@{k}"] / n, 3) for k in DEPTHS},
    }
    emit(
        f"Gold-PMID recall, PubMedQA dev (n={n}), local PubMed index",
        [(key, value) for key, value in figures.items() if key != "benchmark"],
        figures,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
