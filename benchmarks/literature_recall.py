"""Does the literature search find the paper a research question comes from? Gold-PMID recall on PubMedQA.

    python -m benchmarks.literature_recall [--limit N]

Ingests ``../shared/data/pubmed-corpus.jsonl`` (1,000 abstracts) into the local PubMed index of the data
dir (AMG_DATA_DIR; idempotent) and, for the 500 dev questions of ``pubmedqa-dev.jsonl``, reports the gold
PMID's recall@5 and @10 for (a) the question itself as the query and (b) the queries the QA graph sends:
one per question entity its parser finds (AMG_QUERY_PARSER, default auto: the data dir's seeded
vocabularies, and the model when they find nothing), the entity with the question's key words,
AMG_MAX_EVIDENCE records each; (b) counts a hit when the gold PMID is among all records fetched for
the question, in dynamic mode (every entity) and hybrid mode (the gaps only); and, as before the queries
carried the question, for the entity's name alone (dynamic mode).
"""

from __future__ import annotations

import argparse
import json
import sys

from amg.agents.gap_detector import detect_gaps
from amg.agents.query_parser import parse_query
from amg.graphs.context import Context
from amg.graphs.resources import Resources
from amg.tools.literature.index import LiteratureIndex, index_path
from amg.tools.literature.ingest import ingest_files
from benchmarks.report import SHARED_DATA, emit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="first N dev questions")
    args = parser.parse_args(argv)
    ctx = Context(pubmed="local", sources="pubmed")
    index = LiteratureIndex(index_path(ctx.data_path))
    ingest_files(index, [SHARED_DATA / "pubmed-corpus.jsonl"], lambda path, size: lambda n: None)
    rows = [json.loads(line) for line in (SHARED_DATA / "pubmedqa-dev.jsonl").open(encoding="utf-8")]
    rows = rows[: args.limit] if args.limit else rows
    res = Resources(ctx)
    k = ctx.max_evidence
    hits = {"question@5": 0, "question@10": 0, "graph_dynamic": 0, "graph_hybrid": 0, "name_only": 0}
    no_entity, fetched, parsed_by_model = 0, [], 0
    try:
        for row in rows:
            gold = set(row["pmids"])
            ranked = [h.pmid for h in index.search(row["question"], 10)]
            hits["question@5"] += bool(gold & set(ranked[:5]))
            hits["question@10"] += bool(gold & set(ranked))
            entities = parse_query(row["question"], {}, res.llm, res.linker, ctx.max_entities,
                                   parser=ctx.query_parser)["entities"]  # fmt: skip
            no_entity += not entities
            parsed_by_model += any(not e["linked"] or e["how"] != "vocabulary" for e in entities)
            gaps = {g["key"] for g in detect_gaps(entities, res.store, ctx.tau, ctx.stale_days, ctx.min_relations)["gaps"]}
            found: dict[str, set[str]] = {}
            name_only: set[str] = set()
            for entity in entities:
                batch = res.evidence.find_evidence(entity["name"], ["pubmed"], k=k, context=row["question"])
                found[entity["key"]] = {r.pmid for r in batch.records}
                name_only |= {r.pmid for r in res.evidence.find_evidence(entity["name"], ["pubmed"], k=k).records}
            hits["name_only"] += bool(gold & name_only)
            every = set().union(*found.values()) if found else set()
            fetched.append(len(every))
            hits["graph_dynamic"] += bool(gold & every)
            hits["graph_hybrid"] += bool(gold & set().union(*(found[key] for key in gaps))) if gaps else 0
    finally:
        res.close()
        index.close()
    n = len(rows)
    figures = {
        "benchmark": "literature_recall", "n": n, "recall_at_5_question": round(hits["question@5"] / n, 3),
        "recall_at_10_question": round(hits["question@10"] / n, 3),
        "recall_graph_queries_dynamic": round(hits["graph_dynamic"] / n, 3),
        "recall_graph_queries_hybrid": round(hits["graph_hybrid"] / n, 3),
        "recall_entity_name_only_dynamic": round(hits["name_only"] / n, 3),
        "questions_without_entities": no_entity, "questions_with_model_entities": parsed_by_model,
        "parser": ctx.query_parser, "records_fetched_per_question": round(sum(fetched) / n, 1),
        "records_per_entity": k,
    }  # fmt: skip
    emit(f"Gold-PMID recall, PubMedQA dev (n={n}), local PubMed index", [(key, value) for key, value in
         figures.items() if key != "benchmark"], figures)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
