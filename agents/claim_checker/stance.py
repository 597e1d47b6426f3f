"""One paper's stance on a claim: whether its sentences show the claim, or its opposite, or neither.

A small model asked outright for a stance calls most papers on the claim's topic "supports" and hardly ever
"contradicts". Asked twice instead, with the same sentences, "do these sentences show that the statement is true?"
of the claim and of its opposite (written by the model once per claim: ``opposite_of``), it tells the two apart: a
paper counts for the side whose statement it backs more, and for neither when it backs neither with at least
``ADDRESSED``. The two yes-probabilities cancel what they share (the topic, the model's lean to "yes"), so the rule
carries to claims worded unlike SciFact's, and it needs no fitted prior.

Each question shows the ``SHOWN`` sentences of the paper likeliest to settle the claim (agents/claim_checker/
settling.py: closeness to the claim weighed with what marks a finding), numbered as in the abstract; the rationale
quoted is the likeliest of them, with the next when it is itself likelier than not to settle the claim. Of the
papers read for one claim, one that backs its side far less than the best-read paper counts for neither
(``behind_the_best``).

A paper none of whose sentences comes within ``RELEVANCE_GATE`` of the claim, or whose closest sentence is more than
``RELATIVE_GATE`` further from it than the closest paper's, is not read at all: it does not address the claim,
whatever a model would say of it. The gate is a cosine of the default MiniLM sentence vectors: another embedding
model has its own scale.

Each constant was chosen on SciFact's tune claims; the measurements are in docs/claims.md ("How the stance rules were
chosen"), and benchmarks/claim_stance.py re-decides a run's recorded readings at other thresholds and margins.
"""

from __future__ import annotations

from collections.abc import Sequence

from amg.agents.claim_checker.paper import ClaimPaper, Sentence, ShownSentence
from amg.agents.claim_checker.settling import SHOWN, quoted, settling
from amg.prompts import load
from amg.tools.llm.confidence_maps import letter_probabilities
from amg.tools.llm.conversation import TOP_LOGPROBS, talk_scored
from amg.tools.llm.logprobs import TokenLogprob
from amg.tools.llm.structured import Usage

STANCES = ("supports", "contradicts", "neither")
BACKED_MARGIN = 0.1  # how much less than the claim's best-read paper a paper may back its statement and take a side
RELEVANCE_GATE = 0.6  # the closest sentence's cosine similarity under which a paper does not address the claim
RELATIVE_GATE = 0.2  # how much further from the claim than the closest paper a paper may be and still be read
ADDRESSED = 0.4  # the yes-probability the claim or its opposite needs for the paper to take a side
MAX_OPPOSITE_WORDS = 120  # a longer "opposite" is not a rewritten claim
ANSWER_TOKENS = 2
OPPOSITE_TOKENS = 80
_YES_NO = {"YES": "yes", "NO": "no"}


def shown_sentences(
    claim: str, sentences: Sequence[Sentence], *, closeness: list[float], length: int | None = None, limit: int = SHOWN
) -> list[ShownSentence]:
    """Of ``sentences`` ([{n, text}], ``closeness`` their cosines with ``claim``; ``length`` the abstract's number of
    sentences, None when only some are at hand), the ``limit`` likeliest to settle the claim, in the abstract's
    order: [{n, text, relevance, settles}]."""
    settles = settling(claim, sentences, closeness=closeness, length=length)
    ranked = sorted(range(len(sentences)), key=lambda i: -settles[i])[:limit]
    return [
        ShownSentence(
            n=sentences[i]["n"],
            text=sentences[i]["text"],
            relevance=round(float(closeness[i]), 4),
            settles=round(settles[i], 4),
        )
        for i in sorted(ranked, key=lambda i: sentences[i]["n"])
    ]


def opposite_of(claim: str, llm, usage: Usage) -> str | None:
    """The claim rewritten by the model to state the opposite finding, or None when its reply is not one (empty,
    the claim itself, or far longer than a claim)."""
    said, _ = talk_scored(
        llm, [], text=load("claim_opposite").format(claim=claim), usage=usage, max_tokens=OPPOSITE_TOKENS
    )[:2]
    line = next((line.strip() for line in said.splitlines() if line.strip()), "")
    line = line.removeprefix("Claim:").strip().strip('"')
    if not line or _plain(line) == _plain(claim) or len(line.split()) > MAX_OPPOSITE_WORDS:
        return None
    return line


def _plain(text: str) -> str:
    return " ".join(text.lower().replace(".", " ").split())


def yes_probability(logprobs: list[TokenLogprob] | None, said: str) -> float | None:
    """P(yes) at the reply's first yes/no token, or 1/0 from its word when the endpoint gave no log-probabilities;
    None when the reply says neither."""
    found = letter_probabilities(logprobs, ["yes", "no"], _YES_NO)
    if found:
        return found["yes"]
    word = said.strip().strip(".*`\"'").split(maxsplit=1)[0].lower() if said.strip() else ""
    return {"yes": 1.0, "no": 0.0}.get(word.strip(".,!:"))


def shows(statement: str, paper: ClaimPaper, *, llm, usage: Usage) -> float | None:
    """P(the model says ``paper``'s shown sentences show ``statement`` true), or None without a yes or no."""
    lines = "\n".join(f"[{s['n']}] {s['text']}" for s in paper["shown"])
    prompt = load("claim_shows").format(title=paper.get("title") or "", sentences=lines, statement=statement)
    said, _, logprobs = talk_scored(
        llm, [], text=prompt, usage=usage, max_tokens=ANSWER_TOKENS, top_logprobs=TOP_LOGPROBS
    )
    return yes_probability(logprobs, said)


def decide(
    claim_yes: float | None, opposite_yes: float | None, addressed: float = ADDRESSED
) -> tuple[str, dict[str, float]]:
    """(the stance, its distribution) from how likely the model says the sentences show the claim and its opposite.

    The distribution treats the two answers as two readings: supports = the claim shown and its opposite not,
    contradicts = the reverse, neither = both or none. The side taken is the one whose statement is backed more,
    when either is backed with at least ``addressed``; with no opposite to compare, only "supports" can be read."""
    if claim_yes is None:
        return "neither", {}
    if opposite_yes is None:
        return ("supports" if claim_yes >= addressed else "neither"), {"supports": claim_yes, "neither": 1 - claim_yes}
    probabilities = {
        "supports": claim_yes * (1 - opposite_yes),
        "contradicts": opposite_yes * (1 - claim_yes),
        "neither": claim_yes * opposite_yes + (1 - claim_yes) * (1 - opposite_yes),
    }
    if max(claim_yes, opposite_yes) < addressed:
        return "neither", probabilities
    return ("supports" if claim_yes >= opposite_yes else "contradicts"), probabilities


def backing(paper: ClaimPaper) -> float:
    """How strongly ``paper`` backs the statement it sides with: the larger of its two yes-probabilities."""
    return max(paper.get("said", {}).values(), default=0.0)


def behind_the_best(papers: list[ClaimPaper], margin: float = BACKED_MARGIN) -> list[ClaimPaper]:
    """``papers`` with those that take a side backing it more than ``margin`` less than the best-read paper does
    turned to "neither": for one claim, the papers a small model reads as backing it only half-heartedly are mostly
    papers on the topic that do not settle it, once another paper settles it outright. Papers that back their sides
    about equally all stay, so several papers, or papers that disagree, are still counted."""
    best = max((backing(p) for p in papers if p["stance"] != "neither"), default=0.0)
    out = []
    for paper in papers:
        if paper["stance"] != "neither" and backing(paper) < best - margin:
            why = f"backs its reading {backing(paper):.2f}, under the best-read paper's {best:.2f} by over {margin}"
            paper = {**paper, "stance": "neither", "rationale": [], "why": why}
        out.append(paper)
    return out


def read_papers(claim: str, papers: list[ClaimPaper], *, llm, usage: Usage) -> list[ClaimPaper]:
    """Each of ``papers`` with its stance on ``claim`` (``read_stance``), those under the gates unread and those
    far behind the best-read one counted for neither (``behind_the_best``); the claim's opposite is written once,
    when some paper is read."""
    floor = max([RELEVANCE_GATE, *(p["relevance"] - RELATIVE_GATE for p in papers)])
    opposite = opposite_of(claim, llm, usage) if any(p["shown"] and p["relevance"] >= floor for p in papers) else None
    return behind_the_best(
        [read_stance(claim, paper, llm=llm, usage=usage, floor=floor, opposite=opposite) for paper in papers]
    )


def read_stance(
    claim: str, paper: ClaimPaper, *, llm, usage: Usage, floor: float = RELEVANCE_GATE, opposite: str | None = None
) -> ClaimPaper:
    """``paper`` ({id, title, shown: [{n, text, relevance}], relevance}) with its stance on ``claim``:
    ``stance``, ``probabilities`` (``decide``), ``said`` (P(yes) of the claim and of its ``opposite``),
    ``rationale`` (sentence numbers, for a side taken), ``named`` (the sentences read as settling it, whatever its
    stance) and ``why``; a paper whose closest sentence is under ``floor`` is not read."""
    shown = paper["shown"]
    if not shown or paper["relevance"] < floor:
        why = f"no sentence close enough to the claim (best similarity {paper['relevance']:.2f} < {floor:.2f})"
        return {**paper, "stance": "neither", "probabilities": {}, "said": {}, "rationale": [], "named": [], "why": why}
    claim_yes = shows(claim, paper, llm=llm, usage=usage)
    opposite_yes = shows(opposite, paper, llm=llm, usage=usage) if opposite and claim_yes is not None else None
    stance, probabilities = decide(claim_yes, opposite_yes)
    named = quoted(shown)
    said = {"claim": claim_yes, "opposite": opposite_yes}
    return {
        **paper,
        "stance": stance,
        "probabilities": {k: round(v, 4) for k, v in probabilities.items()},
        "said": {k: round(v, 4) for k, v in said.items() if v is not None},
        "opposite": opposite,
        "rationale": named if stance != "neither" else [],
        "named": named,
        "why": "the model's reading" if claim_yes is not None else "no usable reply",
    }
