"""Calibration of the answer confidence: fit on one half of the dev set, report on the other.

Reads the per-question results of `amg bench` (letter probabilities, graph support), fits the
model's letter prior and a Platt map on the "fit" half (evaluation/map_fitting.py), and reports
on the "eval" half: accuracy before/after dividing out the letter prior, the predicted-letter
distribution, ECE of the raw probability and of the calibrated confidence, and how often a
wrong answer prints >= 0.8. With --write each answering method's map is saved for the model
(tools/llm/maps/<model>.<method>.json; "kg" is the one `amg ask` uses), with how it was made.
``--kind open`` reads `amg bench --open` runs: P(True) of the open answer and its support, fitted the same way;
``--kind research-open`` the same for open questions asking whether a study's claim holds (PubMedQA asked plainly).

    python -m benchmarks.calibration bench-out/mmlu-med-dev [--write]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from amg.evaluation.map_fitting import (
    cross_validated_log_loss,
    features,
    fit_map,
    fit_open_map,
    fit_signals_map,
    half,
    log_loss,
    signals_log_loss,
)
from amg.evaluation.metrics import ece, reliability_png
from amg.tools.llm.confidence_maps import map_path
from benchmarks.report import emit


def load_rows(folder: Path, kind: str = "exam") -> list[dict]:
    """Rows whose basis holds what ``kind``'s map reads: letter probabilities, or for open answers P(True)."""
    path = folder / "results.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []
    return [
        r for r in rows if (r.get("confidence_basis") or {}).get("p_true" if kind.endswith("open") else "letter_probs")
    ]


# A map on other signals replaces P(True)'s only when its cross-validated log loss is lower by this.
FEATURE_MARGIN = 0.01


def evaluate_open(method: str, rows: list[dict], model: str, dataset: str, kind: str = "open") -> tuple[dict, object]:
    """Open answers: a map of P(True), one of the answer's likelihood (each with support) and one of every signal
    the review records, fitted on the fit half; the shape kept is the one with the lowest log loss on the parts of
    the fit half it was not fitted on (``cross_validated_log_loss``; P(True) on a near tie), refitted on the whole
    half; each reported on the held-out half."""
    rows = [r for r in rows if "p_answer" in r["confidence_basis"]] or rows
    features = [f for f in ("p_true", "p_answer") if all(f in r["confidence_basis"] for r in rows)]
    fit = [r for r in rows if half(r["id"]) == "fit"]
    held = [r for r in rows if half(r["id"]) == "eval"]
    about = {
        "model": model,
        "method": method,
        "dataset": dataset,
        "kind": kind,
        "split": "sha1(id) even = fit, odd = eval",
        "n_fit": len(fit),
        "n_eval": len(held),
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
    }
    shapes = {f: (lambda part, f=f: fit_open_map(part, about, f)) for f in features}
    if all("agreed" in r["confidence_basis"] for r in rows):
        shapes["signals"] = lambda part: fit_signals_map(part, about)
    if all(r["confidence_basis"].get("agreement") is not None for r in rows):  # P(True), support and agreement alone
        shapes["agreement"] = lambda part: fit_signals_map(part, about, signals=("agreement",))
    unseen = {name: cross_validated_log_loss(shape, fit) for name, shape in shapes.items()}
    chosen = min(unseen, key=lambda name: unseen[name] + (0 if name == "p_true" else FEATURE_MARGIN))
    maps = {f: shapes[f](fit) for f in features}
    combined = {name: shapes[name](fit) for name in ("signals", "agreement") if name in shapes}
    cmap = combined.get(chosen) or maps[chosen]
    basis = [r["confidence_basis"] for r in held]
    support = [float(b.get("support") or 0.0) for b in basis]
    correct = [bool(r["correct"]) for r in held]
    figures = {
        "n_fit": len(fit),
        "n_eval": len(held),
        "accuracy": round(sum(correct) / len(held), 3),
        "chosen_feature": chosen,
        "cross_validated_log_loss": {name: round(float(loss), 4) for name, loss in unseen.items()},
    }
    if all("stated" in b for b in basis):  # the old print (a draft-first answer has no stated confidence)
        figures["ece_stated_formula"] = round(
            ece([b["stated"] * (0.5 + 0.5 * s) for b, s in zip(basis, support)], correct), 3
        )
    for feature, fitted in maps.items():
        printed = [fitted(b[feature], s) for b, s in zip(basis, support)]
        high = [ok for c, ok in zip(printed, correct) if c >= 0.8]
        figures[feature] = {
            "ece_raw": round(ece([b[feature] for b in basis], correct), 3),
            "ece_uncalibrated_print": round(
                ece([b[feature] * (0.5 + 0.5 * s) for b, s in zip(basis, support)], correct), 3
            ),
            "ece_calibrated": round(ece(printed, correct), 3),
            "auroc": auroc([b[feature] for b in basis], correct),
            "fit_log_loss": round(log_loss(fitted, fit), 4),
            "printed_0.8_or_more": len(high),
            "wrong_share_at_0.8_or_more": round(high.count(False) / len(high), 3) if high else 0.0,
            "map": {"a": fitted.a, "b": fitted.b, "c": fitted.c},
        }
    figures["auroc_by_signal"] = {  # each probability the review records, alone, on the held-out half
        name: auroc(
            [float(b[name]) for b in basis if b.get(name) is not None],
            [ok for b, ok in zip(basis, correct) if b.get(name) is not None],
        )
        for name in ("p_true", "p_answer", "p_first", "p_lowest", "p_stated", "agreement")
        if any(b.get(name) is not None for b in basis)
    }
    calibrated = [cmap.score(b, s) for b, s in zip(basis, support)]
    for name, fitted in combined.items():  # every signal the review records in one map; P(True) with agreement
        printed = [fitted.score(b, s) for b, s in zip(basis, support)]
        high = [ok for c, ok in zip(printed, correct) if c >= 0.8]
        figures[name] = {
            "ece_calibrated": round(ece(printed, correct), 3),
            "auroc": auroc(printed, correct),
            "fit_log_loss": round(signals_log_loss(fitted, fit), 4),
            "printed_0.8_or_more": len(high),
            "wrong_share_at_0.8_or_more": round(high.count(False) / len(high), 3) if high else 0.0,
            "map": {"a": fitted.a, "b": fitted.b, "c": fitted.c, "weights": fitted.weights},
        }
    figures["auroc_printed"] = auroc(calibrated, correct)
    return figures, (cmap, calibrated, correct)


# reported row by row
SECTIONS = ("p_true", "p_answer", "signals", "agreement", "auroc_by_signal", "cross_validated_log_loss")


def auroc(scores: list[float], correct: list[bool]) -> float | None:
    """How well ``scores`` rank right answers above wrong ones (0.5: not at all)."""
    right = [s for s, ok in zip(scores, correct) if ok]
    wrong = [s for s, ok in zip(scores, correct) if not ok]
    if not right or not wrong:
        return None
    wins = sum((r > w) + 0.5 * (r == w) for r in right for w in wrong)
    return round(wins / (len(right) * len(wrong)), 3)


def evaluate(method: str, rows: list[dict], model: str, dataset: str, kind: str = "exam") -> tuple[dict, object]:
    fit = [r for r in rows if half(r["id"]) == "fit"]
    held = [r for r in rows if half(r["id"]) == "eval"]
    cmap = fit_map(
        fit,
        {
            "model": model,
            "method": method,
            "dataset": dataset,
            "split": "sha1(id) even = fit, odd = eval",
            "n_fit": len(fit),
            "n_eval": len(held),
            "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        },
        base_rates=kind == "research",
    )
    raw_option = [r["confidence_basis"]["model_option"] for r in held]
    raw_p = [r["confidence_basis"]["letter_probs"].get(o or "", 0.0) for r, o in zip(held, raw_option)]
    scored = [features(r, cmap.letter_prior) for r in held]
    calibrated = [cmap(p, s) for _, p, s in scored]
    correct_raw = [o == r["gold"] for o, r in zip(raw_option, held)]
    stated = [_stated(r["confidence_basis"], method) for r in held]  # the formula before this map
    correct = [o == r["gold"] for (o, _, _), r in zip(scored, held)]
    figures = {
        "n_fit": len(fit),
        "n_eval": len(held),
        "accuracy_model_option": round(sum(correct_raw) / len(held), 3),
        "accuracy_debiased": round(sum(correct) / len(held), 3),
        "letters_model": dict(sorted(Counter(raw_option).items())),
        "letters_debiased": dict(sorted(Counter(o for o, _, _ in scored).items())),
        "ece_stated_formula": round(ece(stated, correct_raw), 3),
        "ece_raw_probability": round(ece(raw_p, correct_raw), 3),
        "ece_calibrated": round(ece(calibrated, correct), 3),
        "wrong_at_0.8_or_more": sum(c >= 0.8 and not ok for c, ok in zip(calibrated, correct)),
        "map": {"a": cmap.a, "b": cmap.b, "c": cmap.c, "letter_prior": cmap.letter_prior},
    }
    return figures, (cmap, calibrated, correct)


def _stated(basis: dict, method: str) -> float:
    """The confidence as printed before: stated x (1/2 + 1/2 x support) by the kg method, stated in the baselines."""
    support = float(basis.get("support") or 0.0)
    return basis["stated"] * (0.5 + 0.5 * support) if method.startswith("kg") else basis["stated"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="bench-out/<dataset>, holding one folder per answering method")
    parser.add_argument("--write", action="store_true", help="save each method's map for its model")
    parser.add_argument(
        "--kind",
        choices=("exam", "research", "open", "research-open"),
        default="exam",
        help="the questions' kind: research = yes / no / maybe on a study's claim (PubMedQA); "
        "open = asked without options (amg bench --open); research-open = research, asked so",
    )
    args = parser.parse_args()
    figures, rows_out = {}, []
    for method_dir in sorted(p for p in args.folder.iterdir() if (p / "summary.json").exists()):
        summary = json.loads((method_dir / "summary.json").read_text())
        rows = load_rows(method_dir, args.kind)
        if len(rows) < 20:
            continue
        if args.kind.endswith("open"):
            found, (cmap, calibrated, correct) = evaluate_open(
                method_dir.name, rows, summary["model"], args.folder.name, args.kind
            )
        else:
            found, (cmap, calibrated, correct) = evaluate(
                method_dir.name, rows, summary["model"], args.folder.name, args.kind
            )
        figures[method_dir.name] = found
        reliability_png(
            calibrated,
            correct,
            method_dir / "reliability-calibrated.png",
            f"{method_dir.name}, calibrated, held-out half (n={found['n_eval']})",
        )
        rows_out += [(f"{method_dir.name} {k}", v) for k, v in found.items() if k != "map" and k not in SECTIONS]
        rows_out += [(f"{method_dir.name} {f} {k}", v) for f in SECTIONS for k, v in found.get(f, {}).items()]
        if args.write:
            cmap.about["eval_figures"] = {k: v for k, v in found.items() if k != "map"}
            path = map_path(summary["model"], method_dir.name.removesuffix("-open"), args.kind)
            cmap.save(path)
            rows_out.append((f"{method_dir.name} map written", str(path)))
    emit(f"Answer-confidence calibration ({args.folder.name}; fit half -> held-out half)", rows_out, figures)


if __name__ == "__main__":
    main()
