"""Differential diagnosis over the graph's disease-phenotype annotations (after MedRAG).

Each disease d carries its phenotypes with the share of patients that have them, p(f | d)
(HPO annotations: confidence = 0.4 + 0.6 x frequency, so frequency is read back from it).
A case is the findings present and absent. Candidates are scored naive-Bayes style:

    log score(d) = sum over present f of log p(f | d) + sum over absent f of log (1 - p(f | d))

with a small p for a present finding d is not annotated with (patients have other things too),
and normalised over the candidates. When the leading candidates are close, the findings worth
asking about are those with the largest expected information gain over the candidates.
Everything here is pure: the graph is read by the caller.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

UNANNOTATED = 0.02  # p(finding | disease) when the disease is not annotated with it
MAX_FREQUENCY = 0.98  # a finding is never certain, so "absent" never rules a disease out alone
CLOSE = 0.6  # the leader's probability under which follow-up questions are proposed


def frequency_of(confidence: float) -> float:
    """The share of patients with the phenotype, from an HPO annotation's confidence (0.4 + 0.6 x share)."""
    return min(max((float(confidence) - 0.4) / 0.6, UNANNOTATED), MAX_FREQUENCY)


@dataclass
class Candidate:
    key: str
    name: str
    probability: float
    present: list[str] = field(default_factory=list)  # findings of the case the disease explains
    absent: list[str] = field(default_factory=list)  # findings ruled out that the disease often has


def rank(annotations: dict[str, dict[str, float]], names: dict[str, str], present: set[str], absent: set[str],
         limit: int = 10) -> list[Candidate]:  # fmt: skip
    """Candidates best first; ``annotations`` = {disease: {finding: p(f | d)}}."""
    logs = {d: _log_score(freq, present, absent) for d, freq in annotations.items()}
    if not logs:
        return []
    top = max(logs.values())
    weights = {d: math.exp(v - top) for d, v in logs.items()}
    total = sum(weights.values())
    ranked = sorted(weights, key=lambda d: (-weights[d], names.get(d, d)))[:limit]
    return [Candidate(d, names.get(d, d), round(weights[d] / total, 4),
                      sorted(f for f in present if f in annotations[d]),
                      sorted(f for f in absent if annotations[d].get(f, 0.0) >= 0.3)) for d in ranked]  # fmt: skip


def _log_score(freq: dict[str, float], present: set[str], absent: set[str]) -> float:
    score = sum(math.log(freq.get(f, UNANNOTATED)) for f in present)
    return score + sum(math.log(1 - freq.get(f, 0.0)) for f in absent)


def questions(annotations: dict[str, dict[str, float]], candidates: list[Candidate], known: set[str],
              limit: int = 3) -> list[tuple[str, float]]:  # fmt: skip
    """Findings not yet known, with their expected information gain (bits) over ``candidates``, best first."""
    prior = {c.key: c.probability for c in candidates}
    total = sum(prior.values())
    if total <= 0 or len(prior) < 2:
        return []
    prior = {d: p / total for d, p in prior.items()}
    findings = {f for d in prior for f in annotations.get(d, {})} - known
    gains = [(f, _gain(prior, {d: annotations[d].get(f, UNANNOTATED) for d in prior})) for f in findings]
    return sorted((g for g in gains if g[1] > 1e-6), key=lambda g: (-g[1], g[0]))[:limit]


def _gain(prior: dict[str, float], likelihood: dict[str, float]) -> float:
    """Expected entropy drop over the candidates from learning whether the finding is there."""
    yes = sum(prior[d] * likelihood[d] for d in prior)
    after = 0.0
    for p_answer, weight in ((yes, likelihood), (1 - yes, {d: 1 - v for d, v in likelihood.items()})):
        if p_answer > 0:
            after += p_answer * _entropy({d: prior[d] * weight[d] / p_answer for d in prior})
    return _entropy(prior) - after


def _entropy(dist: dict[str, float]) -> float:
    return -sum(p * math.log2(p) for p in dist.values() if p > 0)


def is_close(candidates: list[Candidate]) -> bool:
    """Whether the leading candidates are close enough that a follow-up question helps."""
    return len(candidates) > 1 and candidates[0].probability < CLOSE
