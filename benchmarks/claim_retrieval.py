"""Does the claim check find the papers that settle a claim? Gold-abstract recall on SciFact's claims, no model.

    python -m benchmarks.claim_retrieval [--data-dir DIR] [--limit N]

Ingests ``../shared/data/scifact-corpus.jsonl`` (5,183 abstracts; SciFact, Wadden et al. 2020, ODC-By 1.0, Allen
Institute for AI) into the literature index of a temporary data dir (``--data-dir`` keeps it, with the sentence
vectors computed, for a later run) and, for the claims of ``scifact-claims-train.jsonl`` (CC BY 4.0) that have
evidence, reports the recall of a gold abstract among the first 1, 3, 5 and 10 papers, per split (even claim ids
tune, odd ones held out: evaluation/datasets.py ``split_of``) and per ranking of tools/literature/claim_search.py
over BM25's best ``DEPTH``. On the tune split only, it also reports what the stance step's gate and the sentences it
shows would keep (agents/claim_checker/stance.py): gold abstracts among the first three whose closest sentence
passes the gates (``RELEVANCE_GATE``, and ``RELATIVE_GATE`` from the closest paper's), other papers that pass them,
and gold rationale sentences among the sentences shown (the likeliest to settle the claim: settling.py).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
from pathlib import Path

from amg.agents.claim_checker.settling import SHOWN
from amg.agents.claim_checker.stance import RELATIVE_GATE, RELEVANCE_GATE, shown_sentences
from amg.evaluation.datasets import load, split_of
from amg.graphs.claim_path import CLAIM_PAPERS
from amg.tools.literature.claim_search import DEPTH, RANKING, RANKINGS, candidates, ranked
from amg.tools.literature.index import LiteratureIndex, index_path
from amg.tools.literature.ingest import ingest_files
from amg.tools.literature.sentence_vectors import SentenceVectors
from amg.tools.vectors.embeddings import embed, model_path
from benchmarks.report import SHARED_DATA, emit

DEPTHS = (1, 3, 5, 10)
SPLITS = ("tune", "held-out")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", help="keep the index and its sentence vectors here (default: a temporary dir)")
    parser.add_argument("--limit", type=int, help="first N claims of each split")
    parser.add_argument("--features", help="write each tune claim's candidates (BM25, closeness, gold) here (JSONL)")
    args = parser.parse_args(argv)
    logging.getLogger("sentence_transformers").setLevel(logging.WARNING)  # no progress bar per claim
    with tempfile.TemporaryDirectory(prefix="amg-claims-") as scratch:
        return run(Path(args.data_dir or scratch), args.limit, args.features)


def run(data_dir: Path, limit: int | None, features: str | None = None) -> int:
    index = LiteratureIndex(index_path(data_dir))
    if index.stats()["records"] == 0:
        ingest_files(
            index, [SHARED_DATA / "scifact-corpus.jsonl"], progress=lambda p, s: lambda n: None, any_paper=True
        )
    path = str(model_path("minilm", data_dir))
    vectors = SentenceVectors(index.path / "sentence_vectors.sqlite", "minilm", lambda texts: embed(path, texts))
    claims = [c for c in load(SHARED_DATA / "scifact-claims-train.jsonl").items if c["evidence"]]
    hits = {(s, r, k): 0 for s in SPLITS for r in RANKINGS for k in DEPTHS}
    counted = {s: 0 for s in SPLITS}
    gate = {"gold": 0, "gold_passing": 0, "other": 0, "other_passing": 0, "rationale": 0, "rationale_shown": 0}
    try:
        for claim in claims:
            split = split_of(claim)
            if limit and counted[split] >= limit:
                continue
            counted[split] += 1
            found = candidates(index, claim["question"], vectors=vectors, depth=DEPTH)
            gold = {f"s2:{d}" for d in claim["evidence"]}
            for rank in RANKINGS:
                order = [p.article.evidence_id for p in ranked(found, rank)]
                for k in DEPTHS:
                    hits[(split, rank, k)] += bool(gold & set(order[:k]))
            if split == "tune":
                read(ranked(found, RANKING)[:CLAIM_PAPERS], claim, gate)
                if features:
                    dump(features, claim, found)
    finally:
        vectors.close()
        index.close()
    figures = {"benchmark": "claim_retrieval", "depth": DEPTH, "ranking": RANKING, "n": counted}
    rows = []
    for split in SPLITS:
        for rank in RANKINGS:
            recalls = {k: round(hits[(split, rank, k)] / max(counted[split], 1), 3) for k in DEPTHS}
            figures[f"{split}_{rank}"] = {f"recall_at_{k}": v for k, v in recalls.items()}
            rows.append(
                (f"{split} (n={counted[split]}) {rank}", "  ".join(f"@{k} {v:.3f}" for k, v in recalls.items()))
            )
    figures["tune_gate"] = {
        "relevance_gate": RELEVANCE_GATE,
        "relative_gate": RELATIVE_GATE,
        "gold_passing": round(gate["gold_passing"] / max(gate["gold"], 1), 3),
        "other_passing": round(gate["other_passing"] / max(gate["other"], 1), 3),
        "rationale_sentences_shown": round(gate["rationale_shown"] / max(gate["rationale"], 1), 3),
    }
    rows.append(
        (f"tune: gold papers in the first {CLAIM_PAPERS} passing the gate", figures["tune_gate"]["gold_passing"])
    )
    rows.append(("tune: other papers passing it", figures["tune_gate"]["other_passing"]))
    rows.append(
        (
            f"tune: gold rationale sentences among the {SHOWN} shown",
            figures["tune_gate"]["rationale_sentences_shown"],
        )
    )
    emit("Gold-abstract recall, SciFact claims with evidence, local literature index", rows, figures)
    return 0


def dump(path: str, claim: dict, found) -> None:
    """One line of a tune claim's candidates, for designing the stance step's gate and shown sentences."""
    rows = [
        {"id": p.article.evidence_id, "bm25": p.bm25, "relevance": p.relevance, "sentences": p.sentence_scores}
        for p in found
    ]
    with open(path, "a", encoding="utf-8") as sink:
        sink.write(json.dumps({"id": claim["id"], "evidence": claim["evidence"], "candidates": rows}) + "\n")


def read(papers, claim: dict, gate: dict) -> None:
    """Count what the stance step would keep of ``papers``: the gate, and the gold rationale sentences shown."""
    floor = max([RELEVANCE_GATE, *(p.relevance - RELATIVE_GATE for p in papers)])
    for paper in papers:
        doc = paper.article.evidence_id.removeprefix("s2:")
        passing = paper.relevance >= floor
        kind = "gold" if doc in claim["evidence"] else "other"
        gate[kind] += 1
        gate[f"{kind}_passing"] += passing
        if kind == "gold":
            sentences = [{"n": n, "text": text} for n, text in enumerate(paper.article.numbered())]
            scores = paper.sentence_scores or [0.0] * len(sentences)
            shown = {
                s["n"] for s in shown_sentences(claim["question"], sentences, closeness=scores, length=len(sentences))
            }
            wanted = {i for entry in claim["evidence"][doc] for i in entry["sentences"]}
            gate["rationale"] += len(wanted)
            gate["rationale_shown"] += len(wanted & shown)


if __name__ == "__main__":
    sys.exit(main())
