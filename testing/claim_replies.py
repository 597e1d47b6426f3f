"""Scripted replies for a claim check's model calls (agents/claim_checker/): a paper's stance, with the token
log-probabilities of its word, and its findings' lines. Shared by tests and benchmarks."""

from __future__ import annotations

import math
import re

from amg.testing.scripted_llm import last_turn, requested_tool

STANCE_ASKED = "Does this paper show that the claim is true or false?"
FINDINGS_ASKED = "For each sentence that states a finding"


def asks_for_stance(body: dict) -> bool:
    return requested_tool(body) is None and STANCE_ASKED in last_turn(body)


def asks_for_findings(body: dict) -> bool:
    return requested_tool(body) is None and FINDINGS_ASKED in last_turn(body)


def paper_title(body: dict) -> str:
    """The title of the paper a stance or findings request shows."""
    found = re.search(r'<evidence title="([^"]*)">', last_turn(body))
    return found.group(1) if found else ""


def stance(word: str, sentences: tuple[int, ...] = (), p: float = 0.9) -> dict:
    """A stance reply naming ``sentences`` and ``word`` with probability ``p`` (the other two share the rest)."""
    others = [w for w in ("supports", "contradicts", "neither") if w != word]
    top = [{"token": f" {word}", "logprob": math.log(p)}] + [
        {"token": f" {w}", "logprob": math.log((1 - p) / 2)} for w in others
    ]
    named = ", ".join(map(str, sentences)) or "none"
    steps = [
        {"token": t, "logprob": 0.0, "top_logprobs": []} for t in ("Sentences", ":", f" {named}", "\n", "Stance", ":")
    ]
    steps.append({"token": f" {word}", "logprob": math.log(p), "top_logprobs": top})
    return {"content": f"Sentences: {named}\nStance: {word}", "logprobs": steps}


def asks_for_claim_verdict(body: dict) -> str | None:
    """ "rag" or "cot" for the claim baselines' requests (evaluation/claim_baselines.py), else None."""
    turn = last_turn(body) if requested_tool(body) is None else ""
    if "Do these papers show that the claim is true or false?" in turn:
        return "rag"
    return "cot" if "Is this claim true, according to what is known" in turn else None
