"""One paper's stance on a claim: which of its sentences settle it, and whether it supports or contradicts it.

A small model is weak at stance, so its call is short and constrained: it sees the claim and at most
``SHOWN_SENTENCES`` of the paper's sentences (those closest to the claim, numbered as in the abstract), names the
numbers that show it and one word. The word's probability is read from the token log-probabilities at the word
(supports / contradicts / neither) and divided by the model's stance prior where one was fitted (a small model
says "supports" far more readily than "contradicts": tools/llm/confidence_maps.py ``stance_prior``), so the paper
counts for a side only when the model leans to it with at least ``STANCE_FLOOR`` after that correction; sentence
numbers it names are kept only when they are among those shown (none named: the closest shown). A paper none of whose
sentences comes within ``RELEVANCE_GATE`` of the claim, or whose closest sentence is more than ``RELATIVE_GATE``
further from it than the closest paper's, is not read at all: it does not address the claim, whatever a model would
say of it. "Not enough evidence" thus comes from retrieval and from the stance's own probability.

Measured on the first 100 tune claims with evidence (benchmarks/claim_retrieval.py --features): of the three papers
read per claim, a relative gate of 0.2 keeps every gold abstract and 0.64 of the others (0.1: 0.97 and 0.38; the
absolute gate alone at 0.55: 0.96 and 0.71); 0.2, since SciFact's training claims never disagree across papers and a
paper that contradicts a claim is often worded further from it than one that supports it ("did not prevent
fractures" against "reduced hip fractures": 0.75 and 0.91 from "Vitamin D prevents hip fractures"). The five closest
sentences hold a complete gold rationale for 0.75 of gold rationales (three: 0.62).

The absolute gate says when the corpus holds nothing on the claim: how close the closest sentence of the best paper
comes tells a claim with evidence from one without (AUROC 0.78 on the first 200 tune claims), which the small model's
stance does not (it calls most papers on the claim's topic "supports"). On the first 100 tune claims' stored
readings, 0.6 instead of 0.45 took verdict macro-F1 0.43 -> 0.50 and abstract Label-Only F1 0.34 -> 0.40, with "not
enough evidence" predicted 1.35x its true share (0.95x before); 0.7 predicted it 1.65x. With both gates, of the
three papers read 0.91 of gold abstracts and 0.44 of the others pass (benchmarks/claim_retrieval.py). The figure is
a cosine of the default MiniLM sentence vectors: another embedding model has its own scale.
"""

from __future__ import annotations

import re

from amg.prompts import load
from amg.tools.llm.confidence_maps import debias, letter_probabilities
from amg.tools.llm.conversation import TOP_LOGPROBS, talk_scored
from amg.tools.llm.structured import Usage

STANCES = ("supports", "contradicts", "neither")
_WORDS = {s.upper(): s for s in STANCES}
SHOWN_SENTENCES = 5  # the closest sentences shown: more hold the rationale, but give a small model more to mix up
RELEVANCE_GATE = 0.6  # the closest sentence's cosine similarity under which a paper does not address the claim
RELATIVE_GATE = 0.2  # how much further from the claim than the closest paper a paper may be and still be read
STANCE_FLOOR = 0.5  # the probability a side needs for the paper to count for it
MAX_RATIONALE = 3  # SciFact scores the first three sentences of a rationale
STANCE_TOKENS = 24
_NUMBER = re.compile(r"\d+")
_STANCE_LINE = re.compile(r"stance\W*[:=]\s*\W*(\w+)", re.IGNORECASE)
_SENTENCES_LINE = re.compile(r"sentences?\W*[:=]\s*(.*)", re.IGNORECASE)


def shown_sentences(sentences: list[dict], scores: list[float], limit: int = SHOWN_SENTENCES) -> list[dict]:
    """Of ``sentences`` ([{n, text}], ``scores`` their similarities to the claim), the ``limit`` closest to the
    claim, in the abstract's order: [{n, text, relevance}]."""
    ranked = sorted(range(len(sentences)), key=lambda i: -scores[i])[:limit]
    return [
        {**sentences[i], "relevance": round(float(scores[i]), 4)}
        for i in sorted(ranked, key=lambda i: sentences[i]["n"])
    ]


def stance_probabilities(logprobs: list[dict] | None) -> dict[str, float] | None:
    """The distribution over the stances at the token after "Stance:", or None when the reply has none."""
    said = ""
    for step in logprobs or []:
        token = step.get("token", "")
        if re.search(r"stance\W*[:=]\s*\**\s*$", said, re.IGNORECASE) and token.strip(" :*`"):
            return letter_probabilities([step], list(STANCES), _WORDS)
        said += token
    return None


def read_reply(said: str, shown: list[int]) -> tuple[str | None, list[int]]:
    """(the stance word, the sentence numbers among ``shown``) of the model's reply."""
    stance = next((m.group(1).lower() for m in _STANCE_LINE.finditer(said)), None)
    word = next((s for s in STANCES if stance and s.startswith(stance[:4])), None)
    numbers = next((m.group(1) for m in _SENTENCES_LINE.finditer(said)), "")
    picked = [int(n) for n in dict.fromkeys(_NUMBER.findall(numbers)) if int(n) in shown]
    return word, picked


def read_papers(claim: str, papers: list[dict], llm, usage: Usage, prior: dict[str, float] | None = None) -> list[dict]:
    """Each of ``papers`` with its stance on ``claim`` (``read_stance``), those under the gates unread."""
    floor = max([RELEVANCE_GATE, *(p["relevance"] - RELATIVE_GATE for p in papers)])
    return [read_stance(claim, paper, llm, usage, floor, prior) for paper in papers]


def decide(said: dict[str, float], prior: dict[str, float] | None = None) -> tuple[str, dict[str, float]]:
    """(the stance, its distribution) from the model's distribution ``said`` over the stances, divided by the
    model's stance ``prior``: a side counts when it leads with at least ``STANCE_FLOOR``."""
    if not said:
        return "neither", {}
    probabilities = debias({s: said.get(s, 0.0) for s in STANCES}, prior) if prior and len(said) > 1 else said
    leaning = max(probabilities, key=probabilities.get)
    return (leaning if leaning != "neither" and probabilities[leaning] >= STANCE_FLOOR else "neither"), probabilities


def read_stance(
    claim: str, paper: dict, llm, usage: Usage, floor: float = RELEVANCE_GATE, prior: dict[str, float] | None = None
) -> dict:
    """``paper`` ({id, title, shown: [{n, text, relevance}], relevance}) with its stance on ``claim``:
    ``stance``, ``probabilities`` (after the ``prior``), ``said`` (the model's own), ``rationale`` (sentence numbers,
    at most ``MAX_RATIONALE``), ``named`` (those the model named, whatever its stance) and ``why``; a paper whose
    closest sentence is under ``floor`` is not read."""
    shown = paper["shown"]
    if not shown or paper["relevance"] < floor:
        why = f"no sentence close enough to the claim (best similarity {paper['relevance']:.2f} < {floor:.2f})"
        return {**paper, "stance": "neither", "probabilities": {}, "said": {}, "rationale": [], "named": [], "why": why}
    lines = "\n".join(f"[{s['n']}] {s['text']}" for s in shown)
    prompt = load("claim_stance").format(claim=claim, title=paper.get("title") or "", sentences=lines)
    said, _, logprobs = talk_scored(llm, [], prompt, usage, STANCE_TOKENS, TOP_LOGPROBS)
    word, picked = read_reply(said, [s["n"] for s in shown])
    distribution = stance_probabilities(logprobs) or ({word: 1.0} if word else {})
    stance, probabilities = decide(distribution, prior)
    picked = picked or [max(shown, key=lambda s: s["relevance"])["n"]]  # none named: the closest one shown says it
    return {
        **paper,
        "stance": stance,
        "probabilities": {k: round(v, 4) for k, v in probabilities.items()},
        "said": {k: round(v, 4) for k, v in distribution.items()},
        "rationale": picked[:MAX_RATIONALE] if stance != "neither" else [],
        "named": picked[:MAX_RATIONALE],
        "why": "the model's reading" if distribution else "no usable reply",
    }
