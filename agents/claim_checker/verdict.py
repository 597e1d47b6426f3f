"""The verdict across papers: supported, contradicted, mixed (papers disagree) or not enough evidence, with a
confidence and the count when they disagree ("2 papers support, 1 contradicts").

Confidence (uncalibrated: no measured map yet): for one side, the chance that at least one of its papers is read
right, 1 - prod(1 - p) over their stance probabilities; mixed, the weaker side's; not enough evidence,
``NO_EVIDENCE_CEILING`` x (1 - the strongest stance probability of any paper read): the index may simply not hold
the paper that would settle it.
"""

from __future__ import annotations

import math
from typing import TypedDict

from amg.agents.claim_checker.paper import ClaimPaper

VERDICTS = ("supported", "contradicted", "mixed", "not enough evidence")
NO_EVIDENCE_CEILING = 0.8
LABELS = {"supports": "SUPPORT", "contradicts": "CONTRADICT"}


class Verdict(TypedDict, total=False):
    """``weigh`` gives every field; the state holds {} for a turn that checks no claim (graphs/state.py)."""

    verdict: str  # one of VERDICTS
    confidence: float
    counts: dict[str, int]  # papers by stance
    summary: str


class Rationale(TypedDict):
    """SciFact's entry for one abstract: the sentences that settle the claim, and the label."""

    sentences: list[int]
    label: str


def _papers(n: int) -> str:
    return f"{n} paper" + ("s" if n != 1 else "")


def _either(papers: list[ClaimPaper], side: str) -> float:
    return 1 - math.prod(1 - p["probabilities"].get(side, 1.0) for p in papers)


def weigh(papers: list[ClaimPaper]) -> Verdict:
    """{verdict, confidence, counts, summary} of the papers' stances."""
    support = [p for p in papers if p["stance"] == "supports"]
    contra = [p for p in papers if p["stance"] == "contradicts"]
    counts = {"supports": len(support), "contradicts": len(contra), "neither": len(papers) - len(support) - len(contra)}
    if support and contra:
        verdict, confidence = "mixed", min(_either(support, "supports"), _either(contra, "contradicts"))
        summary = f"Mixed evidence: {_papers(len(support))} support the claim, {len(contra)} contradict it."
        if len(support) == 1:
            summary = summary.replace("support the claim", "supports the claim")
        if len(contra) == 1:
            summary = summary.replace("contradict it", "contradicts it")
    elif support or contra:
        side, group = ("supports", support) if support else ("contradicts", contra)
        verdict, confidence = ("supported" if support else "contradicted"), _either(group, side)
        summary = f"{verdict.capitalize()}: {_papers(len(group))} {side if len(group) == 1 else side[:-1]} the claim"
        summary += f" ({counts['neither']} more read do not settle it)." if counts["neither"] else "."
    else:
        strongest = max((max(p["probabilities"].get(s, 0.0) for s in LABELS) for p in papers), default=0.0)
        verdict, confidence = "not enough evidence", NO_EVIDENCE_CEILING * (1 - strongest)
        summary = (
            f"Not enough evidence: none of the {_papers(len(papers))} read settles the claim."
            if papers
            else "Not enough evidence: no paper in the literature index bears on the claim."
        )
    return Verdict(verdict=verdict, confidence=round(confidence, 4), counts=counts, summary=summary)


def submission(papers: list[ClaimPaper]) -> dict[str, Rationale]:
    """SciFact's submission entry for the papers read: {doc: {sentences, label}} for those that take a side."""
    return {
        p["id"]: Rationale(sentences=list(p["rationale"]), label=LABELS[p["stance"]])
        for p in papers
        if p["stance"] in LABELS
    }
