"""The stance rule on recorded readings: how the papers' stances, the verdicts and SciFact's figures move with
``ADDRESSED`` (agents/claim_checker/stance.py), the yes-probability the claim or its opposite needs for a paper to
take a side, and with ``BACKED_MARGIN``, how far behind the claim's best-read paper a paper may back its side and
still take it. No model call: it re-decides the stances a claims run recorded.

    amg bench scifact-claims-train.jsonl --method kg --mode hybrid --split tune --out DIR   # AMG_LEARN=off
    python -m benchmarks.claim_stance DIR/kg-hybrid/results.jsonl

Each row of ``results.jsonl`` keeps, per paper read, P(yes) that its sentences show the claim and its opposite and
the sentences read as settling it (cli/claim_bench.py ``readings``). For each threshold and margin on a grid every
paper's stance is decided again (``decide``, ``behind_the_best``), the verdict weighed again (``weigh``) and
SciFact's figures computed against the claims' gold evidence. Run on tune claims only (say which, n); report the
held-out split with a fresh ``amg bench`` run. SciFact: Wadden et al. 2020, claims CC BY 4.0, Allen Institute for AI.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from amg.agents.claim_checker import stance as rule
from amg.agents.claim_checker.verdict import submission, weigh
from amg.evaluation.datasets import load
from amg.evaluation.scifact_metrics import scifact_metrics, verdict_figures
from benchmarks.report import SHARED_DATA, emit

GRID = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
MARGINS = (0.0, 0.05, 0.1, 0.2, 0.3, 1.0)  # 1.0: every paper that takes a side keeps it


def redo(rows: list[dict], addressed: float, margin: float = rule.BACKED_MARGIN) -> list[dict]:
    """Each row's papers decided again with ``addressed`` as the threshold and ``margin`` behind the best-read
    paper: [{id, gold, verdict, evidence}]."""
    out = []
    for row in rows:
        papers = []
        for doc in row["retrieved"]:
            reading = (row.get("readings") or {}).get(doc) or {}
            said = reading.get("yes") or {}
            stance, probabilities = rule.decide(said.get("claim"), said.get("opposite"), addressed)
            rationale = list(reading.get("named") or []) if stance != "neither" else []
            papers.append(
                {"id": doc, "stance": stance, "probabilities": probabilities, "rationale": rationale, "said": said}
            )
        papers = rule.behind_the_best(papers, margin)
        out.append(
            {"id": row["id"], "gold": row["gold"], "verdict": weigh(papers)["verdict"], "evidence": submission(papers)}
        )
    return out


def figures(decided: list[dict], gold: dict[str, dict]) -> dict:
    """SciFact's abstract and sentence figures and the claim-level verdict figures of ``decided``."""
    metrics = scifact_metrics({d["id"]: d["evidence"] for d in decided}, {d["id"]: gold[d["id"]] for d in decided})
    verdicts = verdict_figures([d["gold"] for d in decided], [d["verdict"] for d in decided])
    predicted = Counter(d["verdict"] for d in decided)
    true_nee = sum(d["gold"] == "not enough evidence" for d in decided)
    return {
        **verdicts,
        "abstract_label_only_f1": metrics["abstract_label_only_f1"]["f1"],
        "sentence_selection_label_f1": metrics["sentence_selection_label_f1"]["f1"],
        "not_enough_evidence_ratio": round(predicted["not enough evidence"] / max(true_nee, 1), 3),
        "predicted_verdicts": dict(predicted),
    }


def sweep(rows: list[dict], gold: dict[str, dict]) -> dict[float, dict]:
    """The figures at each threshold of ``GRID`` and at the shipped one (the shipped margin)."""
    return {a: figures(redo(rows, a), gold) for a in sorted({*GRID, rule.ADDRESSED})}


def sweep_margin(rows: list[dict], gold: dict[str, dict]) -> dict[float, dict]:
    """The figures at each margin of ``MARGINS`` and at the shipped one (the shipped threshold)."""
    return {m: figures(redo(rows, rule.ADDRESSED, m), gold) for m in sorted({*MARGINS, rule.BACKED_MARGIN})}


def _row(f: dict) -> str:
    return (
        f"macro-F1 {f['verdict_macro_f1']:.3f}, accuracy {f['verdict_accuracy']:.3f}, "
        f"Label-Only {f['abstract_label_only_f1']:.3f}, S+L {f['sentence_selection_label_f1']:.3f}, "
        f"NEE {f['not_enough_evidence_ratio']}x"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="results.jsonl of `amg bench` on tune claims (kg, readings recorded)")
    parser.add_argument("--claims", default=str(SHARED_DATA / "scifact-claims-train.jsonl"))
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in Path(args.results).read_text().splitlines() if line.strip()]
    if any(row.get("split") != "tune" for row in rows):
        print("claim_stance: the rule is examined on tune claims only (`amg bench --split tune`)", file=sys.stderr)
        return 2
    rows = [row for row in rows if row.get("readings") is not None and not row.get("error")]
    if not any("yes" in reading for row in rows for reading in row["readings"].values()):
        print("claim_stance: no row records P(yes) readings (re-run `amg bench` on this version)", file=sys.stderr)
        return 2
    gold = {c["id"]: c["evidence"] for c in load(Path(args.claims)).items}
    swept, margins = sweep(rows, gold), sweep_margin(rows, gold)
    table = [(f"ADDRESSED {a}" + (" (shipped)" if a == rule.ADDRESSED else ""), _row(f)) for a, f in swept.items()] + [
        (f"BACKED_MARGIN {m}" + (" (shipped)" if m == rule.BACKED_MARGIN else ""), _row(f)) for m, f in margins.items()
    ]
    emit(
        f"The stance rule on recorded readings (tune, n={len(rows)})",
        table,
        {
            "benchmark": "claim_stance",
            "n": len(rows),
            "shipped": rule.ADDRESSED,
            "shipped_margin": rule.BACKED_MARGIN,
            "by_threshold": swept,
            "by_margin": margins,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
