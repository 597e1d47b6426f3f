"""Fitting the answer-confidence map (tools/llm/confidence_maps.py) on one half of a dev set.

The split is by a hash of the question id, so it is stable across runs and orderings:
half "fit" learns the letter prior and the Platt map, half "eval" reports them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import numpy as np

from amg.tools.llm.confidence_maps import CalibrationMap, debias, logit


def half(question_id: str) -> str:
    return "fit" if int(hashlib.sha1(question_id.encode()).hexdigest(), 16) % 2 == 0 else "eval"


def letter_prior(rows: list[dict], base_rates: bool = False) -> dict[str, float]:
    """The model's mean letter distribution: with shuffled options every position is right equally often.

    ``base_rates``: the options are not shuffled and are not right equally often (yes / no / maybe: 55 / 34 / 11
    in PubMedQA), so the lean is the mean distribution over the answers' own shares in ``rows``: dividing it out
    moves the model's "yes" towards how often "yes" is right, not towards a third."""
    totals: dict[str, float] = {}
    for row in rows:
        for letter, p in row["confidence_basis"]["letter_probs"].items():
            totals[letter] = totals.get(letter, 0.0) + p
    if base_rates:
        golds = [row["gold"] for row in rows]
        totals = {k: v / max(golds.count(k), 1) for k, v in totals.items()}
    total = sum(totals.values())
    return {k: round(v / total, 4) for k, v in sorted(totals.items())} if total else {}


def features(row: dict, prior: dict[str, float] | None) -> tuple[str, float, float]:
    """(option, its debiased probability, graph support) of one bench row."""
    basis = row["confidence_basis"]
    fair = debias(basis["letter_probs"], prior)
    option = max(fair, key=fair.get)
    return option, fair[option], float(basis.get("support") or 0.0)


def fit_platt(
    p_option: list[float],
    support: list[float],
    correct: list[bool],
    l2: float = 1e-2,
    use_support: bool = True,
    use_probability: bool = True,
) -> tuple[float, float, float]:
    """(a, b, c) of sigmoid(a * logit(p) + b * support + c), by Newton's method on the log loss (small ridge).

    Support never lowers the confidence: a fit that weighs it negatively (a few rows off the usual support, on
    a research run where nearly every answer cites its paper at 0.73) is refitted without it (b = 0). Nor does
    the model's own probability: a fit that weighs it negatively (an exam answer's P(True), near 0.9 whether
    right or wrong) is refitted without it (a = 0), so the map stays monotone."""
    x = np.array(
        [[logit(p) if use_probability else 0.0, s if use_support else 0.0, 1.0] for p, s in zip(p_option, support)]
    )
    w = _newton(x, np.array(correct, dtype=float), l2, start=np.array([1.0, 0.0, 0.0]))
    if w[1] < 0:
        return fit_platt(p_option, support, correct, l2, False, use_probability)
    if w[0] < 0:
        return fit_platt(p_option, support, correct, l2, use_support, use_probability=False)
    return float(w[0]), float(w[1]), float(w[2])


PRIOR_MIN_GAIN = 0.02  # dividing out a mild lean only reshuffles near-ties


def fit_map(rows: list[dict], about: dict, base_rates: bool = False) -> CalibrationMap:
    """Letter prior and Platt map from ``rows`` (bench rows with letter probabilities).

    The prior is kept only when dividing it out raises accuracy on ``rows`` by ``PRIOR_MIN_GAIN``;
    ``base_rates``: see ``letter_prior`` (research questions' verdicts).
    """
    prior = letter_prior(rows, base_rates)
    plain = [(features(r, None), r["gold"]) for r in rows]
    scored = [(features(r, prior), r["gold"]) for r in rows]
    if sum(f[0] == gold for f, gold in scored) - sum(f[0] == gold for f, gold in plain) < PRIOR_MIN_GAIN * len(rows):
        prior, scored = {}, plain
    a, b, c = fit_platt(
        [p for (_, p, _), _ in scored],
        [s for (_, _, s), _ in scored],
        [option == gold for (option, _, _), gold in scored],
    )
    return CalibrationMap(round(a, 4), round(b, 4), c=round(c, 4), letter_prior=prior, about=about)


def fit_open_map(rows: list[dict], about: dict, feature: str = "p_true") -> CalibrationMap:
    """Platt map of open answers (bench rows asked without their options) from ``feature`` (P(True), or the
    answer's likelihood ``p_answer``) and support; the map records which feature it reads."""
    a, b, c = fit_platt(
        [r["confidence_basis"][feature] for r in rows],
        [float(r["confidence_basis"].get("support") or 0.0) for r in rows],
        [r["correct"] for r in rows],
    )
    return CalibrationMap(round(a, 4), round(b, 4), c=round(c, 4), letter_prior={}, about={**about, "feature": feature})


def log_loss(cmap: CalibrationMap, rows: list[dict]) -> float:
    """Mean log loss of ``cmap`` on open-answer rows (the feature it reads, their support and correctness)."""
    feature, total = cmap.about.get("feature", "p_true"), 0.0
    for r in rows:
        p = min(
            max(cmap(r["confidence_basis"][feature], float(r["confidence_basis"].get("support") or 0.0)), 1e-6),
            1 - 1e-6,
        )
        total -= np.log(p if r["correct"] else 1 - p)
    return total / len(rows) if rows else 0.0


# Besides P(True) and support, what an open answer's review records; of them, what never lowers the confidence as it
# rises (besides the probabilities); and the parts of the fit half a map's shape is chosen on.
SIGNALS = ("p_answer", "p_first", "p_lowest", "p_stated", "agreed", "revised", "agreement")
MONOTONE = ("support", "agreed", "agreement")
FOLDS = 5


def fit_signals_map(
    rows: list[dict], about: dict, l2: float = 1e-2, signals: tuple[str, ...] = SIGNALS
) -> CalibrationMap:
    """A map of open answers from the signals their review records: sigmoid(a * logit(P(True)) + b * support +
    w . (logit(p_answer), logit(p_first), logit(p_lowest), agreed, revised, agreement) + c), or of the ``signals``
    named, by Newton's method on the log loss (small ridge). A signal the rows never vary on is left out; one weighed
    the wrong way for a probability, support, agreement with a sourced fact or with the sampled answers (lowering
    the confidence as it rises) is dropped and the rest refitted, so the map stays monotone in them."""
    names = ["p_true", "support", *(s for s in signals if len({_signal(r, s) for r in rows}) > 1)]
    while True:
        x = np.array([[_signal(r, n) for n in names] + [1.0] for r in rows])
        w = _newton(x, np.array([bool(r["correct"]) for r in rows], dtype=float), l2)
        wrong_way = [n for n, v in zip(names, w) if v < 0 and (n.startswith("p_") or n in MONOTONE)]
        if not wrong_way:
            break
        names.remove(wrong_way[0])
    weights = dict(zip(names, (round(float(v), 4) for v in w)))
    a, b = weights.pop("p_true", 0.0), weights.pop("support", 0.0)
    return CalibrationMap(
        a, b, c=round(float(w[-1]), 4), letter_prior={}, about={**about, "feature": "p_true"}, weights=weights
    )


def _signal(row: dict, name: str) -> float:
    value = row["confidence_basis"].get(name)
    if name.startswith("p_"):
        return logit(0.5 if value is None else float(value))
    return float(value or 0.0)


def _newton(x: np.ndarray, y: np.ndarray, l2: float, start: np.ndarray | None = None) -> np.ndarray:
    """Logistic regression weights for rows ``x`` and outcomes ``y`` by damped Newton steps on the log loss (a
    small ridge ``l2``): a full step can overshoot and diverge."""

    def loss(w: np.ndarray) -> float:
        return float(np.logaddexp(0.0, x @ w).sum() - y @ (x @ w) + l2 / 2 * w @ w)

    w = np.zeros(x.shape[1]) if start is None else start.astype(float)
    for _ in range(50):
        z = 1 / (1 + np.exp(-(x @ w)))
        step = np.linalg.solve((x.T * (z * (1 - z))) @ x + l2 * np.eye(x.shape[1]), x.T @ (z - y) + l2 * w)
        current = loss(w)
        while loss(w - step) > current and np.abs(step).max() > 1e-10:
            step /= 2
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def signals_log_loss(cmap: CalibrationMap, rows: list[dict]) -> float:
    """Mean log loss of a signals map on open-answer rows."""
    total = 0.0
    for r in rows:
        basis = r["confidence_basis"]
        p = min(max(cmap.score(basis, float(basis.get("support") or 0.0)), 1e-6), 1 - 1e-6)
        total -= np.log(p if r["correct"] else 1 - p)
    return total / len(rows) if rows else 0.0


def cross_validated_log_loss(
    fit: Callable[[list[dict]], CalibrationMap], rows: list[dict], folds: int = FOLDS
) -> float:
    """Mean log loss on ``rows`` of maps fitted by ``fit`` on all but one of ``folds`` parts of them (by a hash of
    the question id), each scored on the part it left out: how a map of that shape does on answers it was not
    fitted on. On the rows it was fitted on, a map with more signals always looks better; here it wins only when
    what it weighs carries over."""
    parts = [[r for r in rows if _fold(r["id"], folds) == k] for k in range(folds)]
    total = 0.0
    for k, part in enumerate(parts):
        rest = [r for j, other in enumerate(parts) if j != k for r in other]
        if part and rest:
            total += signals_log_loss(fit(rest), part) * len(part)
    return total / len(rows) if rows else 0.0


def _fold(question_id: str, folds: int) -> int:
    return int(hashlib.sha1(question_id.encode()).hexdigest(), 16) // 2 % folds  # // 2: not the halves' own bit
