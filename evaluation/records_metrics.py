"""Diagnosis figures for `amg bench CASES --records RECORDS`: DDXPlus accuracy at three levels, phenopackets top-k by
OMIM id, similar-patient hits. Everything here is pure: predictions and answers in, figures out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class Predicted:
    """One case's prediction: diagnoses best first (name, id, p), the similar patients' ids and their diagnoses."""

    id: str
    names: tuple[str, ...]
    ids: tuple[tuple[str, ...], ...]  # per diagnosis, every id it goes by (OMIM ids of a graph disease)
    similar_diagnoses: tuple[tuple[str, ...], ...]  # per similar patient, the ids of its diagnoses


def level_accuracy(
    predicted: list[Predicted], gold: dict[str, str], level_of: Callable[[str, int], str]
) -> dict[str, float]:
    """DDXPlus: the share of cases whose leading diagnosis is the gold pathology (L3), in its ICD-10 block (L2) and
    chapter (L1); ``level_of(pathology, depth)`` reads the dataset's hierarchy."""
    scored = [p for p in predicted if p.id in gold]
    if not scored:
        return {}
    out = {}
    for depth, name in ((1, "L1"), (2, "L2"), (3, "L3")):
        right = sum(1 for p in scored if p.names and level_of(p.names[0], depth) == level_of(gold[p.id], depth) != "")
        out[name] = round(right / len(scored), 4)
    out["n"] = len(scored)
    return out


def top_k(predicted: list[Predicted], gold: dict[str, str], same: Callable[[tuple[str, ...], str], bool]) -> dict:
    """Phenopackets: top-1, top-3, top-10 and MRR of the gold disease id (``same(ids, gold)``: whether a predicted
    diagnosis's ids name it), and similar-patient hit@3 (a retrieved patient has the gold disease)."""
    scored = [p for p in predicted if p.id in gold]
    if not scored:
        return {}
    ranks = []
    for p in scored:
        rank = next((i for i, ids in enumerate(p.ids) if same(ids, gold[p.id])), None)
        ranks.append(rank)
    n = len(scored)
    hits = sum(1 for p in scored if any(same(ids, gold[p.id]) for ids in p.similar_diagnoses[:3]))
    return {
        "top1": round(sum(1 for r in ranks if r == 0) / n, 4),
        "top3": round(sum(1 for r in ranks if r is not None and r < 3) / n, 4),
        "top10": round(sum(1 for r in ranks if r is not None and r < 10) / n, 4),
        "mrr": round(sum(1 / (r + 1) for r in ranks if r is not None) / n, 4),
        "similar_hit3": round(hits / n, 4),
        "n": n,
    }
