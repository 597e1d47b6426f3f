"""The model's own probabilities that its open answer is right, two ways: asked whether the answer it just
gave is correct, the probability of "yes" at the verdict's token (P(True), Kadavath et al. 2022: one short
extra call, which the conversation kept for follow-ups does not include); and the likelihood of the answer's
own tokens as it wrote them (their geometric mean probability, the first and the least likely: no extra call).
Which of them the printed confidence rests on is measured per model (benchmarks/calibration.py --kind open).
Multiple-choice answers need neither: the option token's probabilities already say how sure the model is.
"""

from __future__ import annotations

import math

from amg.prompts import load
from amg.tools.llm.confidence_maps import letter_probabilities
from amg.tools.llm.conversation import TOP_LOGPROBS, Turn, talk_scored
from amg.tools.llm.logprobs import TokenLogprob
from amg.tools.llm.structured import Usage

CHECK_TOKENS = 4
_VERDICT = {"YES": "yes", "NO": "no"}


def p_true(llm, dialogue: list[Turn], usage: Usage) -> float | None:
    """P(yes) to "Is the answer you just gave correct?" after ``dialogue`` (which ends with the answer), or None
    when the endpoint returns no log-probabilities or the reply names no verdict."""
    _, _, logprobs = talk_scored(
        llm, dialogue, text=load("verify").format(), usage=usage, max_tokens=CHECK_TOKENS, top_logprobs=TOP_LOGPROBS
    )
    probs = letter_probabilities(logprobs, list(_VERDICT.values()), _VERDICT)
    return probs["yes"] if probs else None


def answer_token_probabilities(logprobs: list[TokenLogprob] | None, said: str, answer: str) -> list[float]:
    """The probabilities of the tokens that wrote ``answer`` within the reply ``said``, in order (empty when the
    reply does not hold it or the endpoint gave no log-probabilities)."""
    start = said.find(answer) if answer else -1
    if start < 0 or not logprobs:
        return []
    end, at, picked = start + len(answer), 0, []
    for step in logprobs:
        token = step.get("token", "")
        if at + len(token) > start and at < end:
            picked.append(math.exp(float(step["logprob"])))
        at += len(token)
    return picked


def answer_likelihood(logprobs: list[TokenLogprob] | None, said: str, answer: str) -> float | None:
    """The geometric mean probability of the tokens that wrote ``answer`` within the reply ``said``."""
    picked = answer_token_probabilities(logprobs, said, answer)
    return math.exp(sum(math.log(max(p, 1e-300)) for p in picked) / len(picked)) if picked else None


def token_signals(probabilities: list[float]) -> dict[str, float]:
    """What an open answer's own tokens say of how sure the model was, at no extra call: ``p_first``, the
    probability of the answer's first token (where it commits to what it names, when it starts with it), and
    ``p_lowest``, that of the least likely token it wrote (one guessed word in an otherwise fluent answer)."""
    if not probabilities:
        return {}
    return {"p_first": round(probabilities[0], 4), "p_lowest": round(min(probabilities), 4)}
