"""Evaluation metrics: accuracy, macro-F1, expected calibration error, reliability diagram."""

from __future__ import annotations

import statistics
from collections import Counter
from pathlib import Path


def accuracy(gold: list[str], predicted: list[str | None]) -> float:
    return sum(g == p for g, p in zip(gold, predicted)) / len(gold) if gold else 0.0


def macro_f1(gold: list[str], predicted: list[str | None]) -> float:
    """F1 averaged over the gold labels; an unparsed prediction counts as wrong."""
    labels = sorted(set(gold))
    scores = []
    for label in labels:
        tp = sum(g == label and p == label for g, p in zip(gold, predicted))
        fp = sum(g != label and p == label for g, p in zip(gold, predicted))
        fn = sum(g == label and p != label for g, p in zip(gold, predicted))
        scores.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return sum(scores) / len(scores) if scores else 0.0


def calibration_bins(confidences: list[float], correct: list[bool], bins: int = 10) -> list[dict]:
    out = []
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        members = [i for i, c in enumerate(confidences) if low <= c < high or (b == bins - 1 and c == 1.0)]
        if members:
            out.append(
                {
                    "low": low,
                    "high": high,
                    "n": len(members),
                    "confidence": statistics.mean(confidences[i] for i in members),
                    "accuracy": statistics.mean(float(correct[i]) for i in members),
                }
            )
    return out


def ece(confidences: list[float], correct: list[bool], bins: int = 10) -> float:
    """Expected calibration error: bin-size-weighted |accuracy - confidence| over equal-width bins."""
    total = len(confidences)
    return (
        sum(b["n"] / total * abs(b["accuracy"] - b["confidence"]) for b in calibration_bins(confidences, correct, bins))
        if total
        else 0.0
    )


def reliability_png(confidences: list[float], correct: list[bool], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bins = calibration_bins(confidences, correct)
    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    ax.plot([0, 1], [0, 1], "--", color="grey", label="perfect calibration")
    ax.bar([b["low"] + 0.05 for b in bins], [b["accuracy"] for b in bins], width=0.09, alpha=0.7, label="accuracy")
    ax.plot([b["confidence"] for b in bins], [b["accuracy"] for b in bins], "o", color="black")
    for b in bins:
        ax.annotate(str(b["n"]), (b["low"] + 0.05, b["accuracy"] + 0.02), ha="center", fontsize=7)
    ax.set(xlim=(0, 1), ylim=(0, 1.05), xlabel="stated confidence", ylabel="accuracy", title=title)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def percentile(values: list[float], q: int) -> float:
    if not values:
        return 0.0
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else values[0]


def letter_distribution(predicted: list[str | None]) -> dict[str, int]:
    return dict(sorted(Counter(p or "unparsed" for p in predicted).items()))
