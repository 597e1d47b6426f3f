"""A paper as a claim check reads it: its metadata and numbered sentences, found in the literature index or read back
from the graph (graphs/claim_path.py, from_graph.py), then the sentences shown to the model and, once read
(stance.py), its stance with the sentences that settle it."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class Sentence(TypedDict):
    n: int  # its number in the abstract (0 = the first)
    text: str


class ShownSentence(Sentence):
    relevance: float  # cosine with the claim
    settles: float  # the probability that it settles the claim (settling.py)


class ClaimPaper(TypedDict):
    id: str
    title: str
    url: str | None
    year: int | None
    pmid: str | None
    doi: str | None
    kind: str
    sentences: list[Sentence]
    source: NotRequired[str]  # "index" | "graph"
    score: NotRequired[float]  # how well it matched the claim when found
    relevance: NotRequired[float]  # its closest sentence's cosine with the claim
    shown: NotRequired[list[ShownSentence]]
    # once read (stance.read_stance)
    stance: NotRequired[str]  # "supports" | "contradicts" | "neither"
    probabilities: NotRequired[dict[str, float]]  # by stance
    said: NotRequired[dict[str, float]]  # P(yes) of "claim" and "opposite"
    opposite: NotRequired[str | None]
    rationale: NotRequired[list[int]]  # sentence numbers, for a side taken
    named: NotRequired[list[int]]  # the sentences read as settling it, whatever its stance
    why: NotRequired[str]
