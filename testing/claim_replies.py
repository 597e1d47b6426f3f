"""Scripted replies for a claim check's model calls (agents/claim_checker/): the claim's opposite, whether a
paper's sentences show a statement (yes / no with the token log-probabilities of its word), and its findings' lines.
Shared by tests and benchmarks."""

from __future__ import annotations

import math
import re

from amg.testing.scripted_llm import last_turn, requested_tool

STANCE_ASKED = "Do these sentences show that the statement is true?"
OPPOSITE_ASKED = "Rewrite this scientific claim so that it states the opposite finding."
OPPOSITE = "It is not true that "  # how the scripted model writes a claim's opposite
FINDINGS_ASKED = "For each sentence that states a finding"


def asks_for_stance(body: dict) -> bool:
    """A request of the stance step: the claim's opposite, or whether a paper's sentences show a statement."""
    turn = last_turn(body) if requested_tool(body) is None else ""
    return STANCE_ASKED in turn or OPPOSITE_ASKED in turn


def asks_for_findings(body: dict) -> bool:
    return requested_tool(body) is None and FINDINGS_ASKED in last_turn(body)


def paper_title(body: dict) -> str:
    """The title of the paper a stance or findings request shows."""
    found = re.search(r'<evidence title="([^"]*)">', last_turn(body))
    return found.group(1) if found else ""


def stance(body: dict, word: str, p: float = 0.9) -> dict:
    """The reply to a stance step's request (``asks_for_stance``) that reads the paper shown as ``word``: the
    claim's opposite when that is asked; else "yes" or "no" to the statement shown, P(yes) ``p`` for the statement
    the paper backs (the claim for "supports", its opposite for "contradicts", none for "neither"), 1 - ``p`` for
    the other."""
    turn = last_turn(body)
    if OPPOSITE_ASKED in turn:
        claim = re.search(r"Claim: (.*)", turn)
        return {"content": OPPOSITE + (claim.group(1).strip() if claim else "")}
    statement = re.search(r"Statement: (.*)", turn)
    is_opposite = bool(statement) and statement.group(1).startswith(OPPOSITE)
    backed = (word == "supports" and not is_opposite) or (word == "contradicts" and is_opposite)
    return yes_no(p if backed else 1 - p)


def yes_no(p_yes: float) -> dict:
    """A one-word reply with P(yes) ``p_yes`` at its token."""
    word = "yes" if p_yes >= 0.5 else "no"
    top = [{"token": "yes", "logprob": math.log(p_yes)}, {"token": "no", "logprob": math.log(1 - p_yes)}]
    return {
        "content": word,
        "logprobs": [{"token": word, "logprob": top[word == "no"]["logprob"], "top_logprobs": top}],
    }


def asks_for_claim_verdict(body: dict) -> str | None:
    """ "rag" or "cot" for the claim baselines' requests (evaluation/claim_baselines.py), else None."""
    turn = last_turn(body) if requested_tool(body) is None else ""
    if "Do these papers show that the claim is true or false?" in turn:
        return "rag"
    return "cot" if "Is this claim true, according to what is known" in turn else None
