"""Differential diagnosis over the graph's disease-phenotype annotations (after MedRAG).

Each disease d carries its phenotypes with the share of patients that have them, p(f | d)
(HPO annotations: confidence = 0.4 + 0.6 x frequency, so frequency is read back from it).
A case is the findings present and absent. Candidates are scored naive-Bayes style:

    log score(d) = sum over present f of log p(f | d) + sum over absent f of log (1 - p(f | d))

with a small p for a present finding d is not annotated with (patients have other things too),
and normalised over the candidates. Subtypes then fold into their disease (Neonatal Marfan
syndrome into Marfan syndrome, tuberous sclerosis 1 and 2 into tuberous sclerosis): a clinician
names the disease first, and a question that only tells subtypes apart is not worth asking.
When the leading candidates are close, the findings worth asking about are those that together
carry the most expected information over the candidates (a second question that splits the
candidates the way the first does adds nothing). Everything here is pure: the graph is read by the caller.
"""

from __future__ import annotations

import math
from dataclasses import KW_ONLY, dataclass, field

from amg.tools.kg.store.rows import EntityRef

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
    _: KW_ONLY
    probability: float
    present: list[str] = field(default_factory=list)  # findings of the case the disease explains
    absent: list[str] = field(default_factory=list)  # findings ruled out that the disease often has
    subtypes: list[str] = field(default_factory=list)  # keys of the candidates folded into this one


def rank(
    annotations: dict[str, dict[str, float]],
    names: dict[str, str],
    *,
    present: set[str],
    absent: set[str],
    limit: int = 10,
) -> list[Candidate]:
    """Candidates best first; ``annotations`` = {disease: {finding: p(f | d)}}."""
    logs = {d: _log_score(freq, present, absent) for d, freq in annotations.items()}
    if not logs:
        return []
    top = max(logs.values())
    weights = {d: math.exp(v - top) for d, v in logs.items()}
    total = sum(weights.values())
    ranked = sorted(weights, key=lambda d: (-weights[d], names.get(d, d)))[:limit]
    return [
        Candidate(
            d,
            names.get(d, d),
            probability=round(weights[d] / total, 4),
            present=sorted(f for f in present if f in annotations[d]),
            absent=sorted(f for f in absent if annotations[d].get(f, 0.0) >= 0.3),
        )
        for d in ranked
    ]


def inherit(annotations: dict[str, dict[str, float]], finer: dict[str, set[str]]) -> dict[str, dict[str, float]]:
    """``annotations`` where a disease annotated only with finer findings than a case's finding f (``finer``:
    f -> its descendants) has f as often as the commonest of them (HPO's true-path rule: a patient with
    multiple cafe-au-lait spots has cafe-au-lait spots)."""
    inherited = {}
    for disease, freq in annotations.items():
        extra = {
            f: max(freq[d] for d in below & freq.keys())
            for f, below in finer.items()
            if f not in freq and below & freq.keys()
        }
        inherited[disease] = {**freq, **extra}
    return inherited


def blend(
    annotations: dict[str, dict[str, float]],
    counts: dict[str, tuple[int, dict[str, int]]],
    *,
    findings: set[str],
    prior_patients: float,
) -> dict[str, dict[str, float]]:
    """p(f | d) from both halves, for the case's ``findings``: the knowledge's frequency counted as ``prior_patients``
    patients beside the stored patients with d (``counts``: d -> (patients, {f: how many have it})),

        p(f | d) = (n(f, d) + m x p_kg(f | d)) / (n(d) + m)

    A disease only the records know starts from ``UNANNOTATED``; one only the knowledge knows keeps its frequencies."""
    blended = {d: dict(freq) for d, freq in annotations.items()}
    for disease, (patients, having) in counts.items():
        known = annotations.get(disease, {})
        row = blended.setdefault(disease, {})
        for f in findings:
            if f not in known and not having.get(f):
                continue  # neither half links f to d: rank's default for an unannotated finding
            prior = known.get(f, UNANNOTATED)
            row[f] = min(max((having.get(f, 0) + prior_patients * prior) / (patients + prior_patients), 0.0), 1.0)
    return blended


def pool(
    candidates: list[Candidate],
    annotations: dict[str, dict[str, float]],
    *,
    case: tuple[set[str], set[str]],
    votes: dict[str, float],
    weight: float,
    floor: float,
    temperature: float = 1.0,
) -> list[Candidate]:
    """``candidates`` re-weighed by the similar patients' ``votes`` (d -> share), p(case | d) x (vote(d) +
    floor)^weight, tempered (the log-score divided by ``temperature``, fitted so the leader's probability is as often
    right as it says), normalised over the candidates, best first (scored from the log-likelihoods, not from rounded
    probabilities)."""
    if not votes or weight <= 0 or not candidates:
        return candidates
    present, absent = case
    logs = {
        c.key: (_log_score(annotations[c.key], present, absent) + weight * math.log(votes.get(c.key, 0.0) + floor))
        / temperature
        for c in candidates
    }
    top = max(logs.values())
    total = sum(math.exp(v - top) for v in logs.values())
    for c in candidates:
        c.probability = round(math.exp(logs[c.key] - top) / total, 4)
    return sorted(candidates, key=lambda c: (-logs[c.key], c.name))


def _log_score(freq: dict[str, float], present: set[str], absent: set[str]) -> float:
    score = sum(math.log(freq.get(f, UNANNOTATED)) for f in present)
    return score + sum(math.log(1 - freq.get(f, 0.0)) for f in absent)


def fold_subtypes(
    candidates: list[Candidate], annotations: dict[str, dict[str, float]], parents: dict[str, list[EntityRef]]
) -> tuple[list[Candidate], dict[str, dict[str, float]]]:
    """Candidates with subtypes folded into their disease, and the folded diseases' annotations.

    A candidate folds into a parent (``parents``: key -> [{key, name, type}], its is_a targets) that
    is itself a candidate, or a disease whose name the candidate's name contains ("tuberous
    sclerosis" for "tuberous sclerosis 2"). The disease takes the subtypes' probability, and its
    p(f | d) becomes their mixture weighted by probability.
    """
    by_key = {c.key: c for c in candidates}
    home: dict[str, tuple[str, str]] = {}
    for c in candidates:
        for p in parents.get(c.key, []):
            named = p.get("type") == "disease" and f" {p['key']} " in f" {c.key} " and p["key"] != c.key
            if p["key"] in by_key or named:
                home[c.key] = (p["key"], p["name"])
                break
    groups: dict[str, list[Candidate]] = {}
    for c in candidates:
        target = home.get(c.key, (c.key, c.name))[0]
        if target in home:  # the parent is itself a subtype: fold into its disease
            target = home[target][0]
        groups.setdefault(target, []).append(c)
    folded, mixed = [], {}
    for key, members in groups.items():
        weight = sum(m.probability for m in members)
        head = by_key.get(key) or Candidate(key, next(n for k, n in home.values() if k == key), probability=0.0)
        mixed[key] = (
            {
                f: sum(m.probability * annotations[m.key].get(f, UNANNOTATED) for m in members) / weight
                for m in members
                for f in annotations[m.key]
            }
            if weight > 0
            else dict(annotations.get(key, {}))
        )
        folded.append(
            Candidate(
                key,
                head.name,
                probability=round(weight, 4),
                present=sorted({f for m in members for f in m.present}),
                absent=sorted({f for m in members for f in m.absent}),
                subtypes=[m.key for m in members if m.key != key],
            )
        )
    return sorted(folded, key=lambda c: (-c.probability, c.name)), mixed


def questions(
    annotations: dict[str, dict[str, float]], candidates: list[Candidate], *, known: set[str], limit: int = 3
) -> list[tuple[str, float]]:
    """Up to ``limit`` findings not yet known, chosen greedily for the information they carry together
    over ``candidates``; each with what it adds to those before it (bits), best first."""
    prior = {c.key: c.probability for c in candidates}
    total = sum(prior.values())
    if total <= 0 or len(prior) < 2:
        return []
    prior = {d: p / total for d, p in prior.items()}
    findings = sorted({f for d in prior for f in annotations.get(d, {})} - known)
    likelihood = {f: {d: annotations[d].get(f, UNANNOTATED) for d in prior} for f in findings}
    chosen: list[tuple[str, float]] = []
    before = 0.0
    for _ in range(limit):
        asked = [likelihood[f] for f, _ in chosen]
        gains = [(f, _gain(prior, [*asked, likelihood[f]]) - before) for f in findings if f not in dict(chosen)]
        best = min(gains, key=lambda g: (-g[1], g[0]), default=None)
        if best is None or best[1] <= 1e-6:
            break
        chosen.append(best)
        before += best[1]
    return chosen


def _gain(prior: dict[str, float], likelihoods: list[dict[str, float]]) -> float:
    """Expected entropy drop over the candidates from learning whether each finding is there."""
    after = 0.0
    for answers in range(2 ** len(likelihoods)):
        joint = dict(prior)
        for i, likelihood in enumerate(likelihoods):
            yes = answers >> i & 1
            joint = {d: p * (likelihood[d] if yes else 1 - likelihood[d]) for d, p in joint.items()}
        p_answers = sum(joint.values())
        if p_answers > 0:
            after += p_answers * _entropy({d: p / p_answers for d, p in joint.items()})
    return _entropy(prior) - after


def _entropy(dist: dict[str, float]) -> float:
    return -sum(p * math.log2(p) for p in dist.values() if p > 0)


def is_close(candidates: list[Candidate]) -> bool:
    """Whether the leading candidates are close enough that a follow-up question helps."""
    return len(candidates) > 1 and candidates[0].probability < CLOSE
