"""Figures for questions that come from a paper (items carrying gold ``pmids``): did the loop find the paper,
does the answer cite it, and does it cite only what it rests on.

Per result row: ``gold_pmids``, ``fetched_pmids`` (the evidence fetched or read for the question),
``cited_pmids`` (the papers the answer cites). ``citation_precision`` is over the answers that cite a paper:
an answer that cites nothing is counted by ``citation_hit``, not here.
"""

from __future__ import annotations

import statistics


def gold_recall(rows: list[dict]) -> float:
    """Share of questions with a gold PMID among the evidence fetched."""
    return _share([bool(set(r["gold_pmids"]) & set(r.get("fetched_pmids") or [])) for r in rows])


def citation_hit(rows: list[dict]) -> float:
    """Share of answers citing a gold PMID."""
    return _share([bool(set(r["gold_pmids"]) & set(r.get("cited_pmids") or [])) for r in rows])


def citation_precision(rows: list[dict]) -> float | None:
    """Mean share of gold papers among each citing answer's cited papers (None when no answer cites one)."""
    shares = [len(set(r["gold_pmids"]) & set(r["cited_pmids"])) / len(set(r["cited_pmids"]))
              for r in rows if r.get("cited_pmids")]  # fmt: skip
    return statistics.mean(shares) if shares else None


def literature_figures(rows: list[dict]) -> dict | None:
    """The figures above for the rows that carry gold PMIDs (None when none do), with the citing share."""
    judged = [r for r in rows if r.get("gold_pmids")]
    if not judged:
        return None
    return {"n": len(judged), "gold_recall": gold_recall(judged), "citation_hit": citation_hit(judged),
            "citation_precision": citation_precision(judged),
            "citing_share": _share([bool(r.get("cited_pmids")) for r in judged])}  # fmt: skip


def _share(flags: list[bool]) -> float:
    return sum(flags) / len(flags) if flags else 0.0
