"""Fit the model's stance prior on tune claims: how readily it says each stance, so that dividing by that lean reads
"contradicts" where the papers do. No model call: it re-decides the stances a claims run recorded.

    amg bench scifact-claims-train.jsonl --method kg --mode hybrid --split tune --out DIR   # AMG_LEARN=off
    python -m benchmarks.claim_stance DIR/kg-hybrid/results.jsonl [--write]

Each row of ``results.jsonl`` keeps, per paper read, the model's own distribution over supports / contradicts /
neither and the sentences it named (cli/claim_bench.py ``readings``). For each prior on a grid (the ratios of
supports and of contradicts to neither), every paper's stance is decided again (agents/claim_checker/stance.py
``decide``), the verdict weighed again (``weigh``), and SciFact's figures computed against the claims' gold
evidence; the prior kept is the one with the highest sum of verdict macro-F1 and abstract-level Label-Only F1 on
these (tune) claims only. ``--write`` ships it as ``tools/llm/maps/<model>.stance.json``; report the held-out split
with a fresh ``amg bench`` run. SciFact: Wadden et al. 2020, claims CC BY 4.0, Allen Institute for AI.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from amg.agents.claim_checker.stance import MAX_RATIONALE, decide
from amg.agents.claim_checker.verdict import submission, weigh
from amg.evaluation.datasets import load
from amg.evaluation.scifact_metrics import scifact_metrics, verdict_figures
from amg.tools.llm.confidence_maps import stance_map_path
from benchmarks.report import SHARED_DATA, emit

RATIOS = [round(math.exp(x / 4), 4) for x in range(-12, 13)]  # e^-3 .. e^3: a side's lean against "neither"


def redo(rows: list[dict], prior: dict[str, float] | None) -> list[dict]:
    """Each row's papers decided again under ``prior``: [{id, gold, verdict, evidence}]."""
    out = []
    for row in rows:
        papers = []
        for doc in row["retrieved"]:
            reading = (row.get("readings") or {}).get(doc) or {}
            stance, probabilities = decide(reading.get("p") or {}, prior)
            rationale = list(reading.get("named") or [])[:MAX_RATIONALE] if stance != "neither" else []
            papers.append({"id": doc, "stance": stance, "probabilities": probabilities, "rationale": rationale})
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


def fit(rows: list[dict], gold: dict[str, dict]) -> tuple[dict[str, float], dict]:
    """The prior on the grid with the best verdict macro-F1 + abstract Label-Only F1, and its figures."""
    best: tuple[float, dict[str, float], dict] | None = None
    grid = sorted(itertools.product(RATIOS, RATIOS), key=lambda r: abs(math.log(r[0])) + abs(math.log(r[1])))
    for supports, contradicts in grid:  # from no correction outwards: of equal scores, the smallest correction
        total = supports + contradicts + 1.0
        prior = {"supports": supports / total, "contradicts": contradicts / total, "neither": 1.0 / total}
        got = figures(redo(rows, prior), gold)
        score = got["verdict_macro_f1"] + got["abstract_label_only_f1"]
        if best is None or score > best[0] + 1e-9:
            best = (score, {k: round(v, 4) for k, v in prior.items()}, got)
    assert best is not None
    return best[1], best[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="results.jsonl of `amg bench` on tune claims (kg, readings recorded)")
    parser.add_argument("--claims", default=str(SHARED_DATA / "scifact-claims-train.jsonl"))
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct", help="the served model the run used")
    parser.add_argument("--write", action="store_true", help="ship the fitted prior for --model")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in Path(args.results).read_text().splitlines() if line.strip()]
    if any(row.get("split") != "tune" for row in rows):
        print("claim_stance: the prior is fitted on tune claims only (`amg bench --split tune`)", file=sys.stderr)
        return 2
    rows = [row for row in rows if row.get("readings") is not None and not row.get("error")]
    if not rows:
        print("claim_stance: no row records its readings (re-run `amg bench` on this version)", file=sys.stderr)
        return 2
    gold = {c["id"]: c["evidence"] for c in load(Path(args.claims)).items}
    before = figures(redo(rows, None), gold)
    prior, after = fit(rows, gold)
    shown = ("verdict_accuracy", "verdict_macro_f1", "abstract_label_only_f1", "sentence_selection_label_f1")
    table = [(f"{name} (tune, n={len(rows)})", f"{before[name]:.3f} -> {after[name]:.3f}") for name in shown]
    table.append(
        (
            "'not enough evidence' / its true share",
            f"{before['not_enough_evidence_ratio']} -> {after['not_enough_evidence_ratio']}",
        )
    )
    table.append(("verdicts predicted", f"{before['predicted_verdicts']} -> {after['predicted_verdicts']}"))
    table.append(("stance prior (supports / contradicts / neither)", prior))
    if args.write:
        path = stance_map_path(args.model)
        about = {
            "model": args.model,
            "fitted_on": f"SciFact train claims, tune split (even ids), n={len(rows)}",
            "objective": "verdict macro-F1 + abstract Label-Only F1",
            "before": before,
            "after": after,
            "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        }
        path.write_text(json.dumps({"version": 1, "prior": prior, "about": about}, indent=2) + "\n")
        table.append(("written", str(path)))
    emit(
        "The stance prior, fitted on tune claims",
        table,
        {"benchmark": "claim_stance", "n": len(rows), "prior": prior, "before": before, "after": after},
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
