"""The model's own probability that its open answer is right: asked whether the answer it just gave is
correct, the probability of "yes" at the verdict's token (P(True), Kadavath et al. 2022).

One short extra call after an open answer; the conversation kept for follow-ups does not include it.
Multiple-choice answers need none: the option token's probabilities already say how sure the model is.
"""

from __future__ import annotations

from amg.agents.conversation import Turn, talk_scored
from amg.agents.structured import Usage
from amg.prompts import load
from amg.tools.llm.calibration import letter_probabilities

CHECK_TOKENS = 4
TOP_LOGPROBS = 20
_VERDICT = {"YES": "yes", "NO": "no"}


def p_true(llm, dialogue: list[Turn], usage: Usage) -> float | None:
    """P(yes) to "Is the answer you just gave correct?" after ``dialogue`` (which ends with the answer), or None
    when the endpoint returns no log-probabilities or the reply names no verdict."""
    _, _, logprobs = talk_scored(llm, dialogue, load("verify").format(), usage, CHECK_TOKENS, TOP_LOGPROBS)
    probs = letter_probabilities(logprobs, list(_VERDICT.values()), _VERDICT)
    return probs["yes"] if probs else None
