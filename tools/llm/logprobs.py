"""A reply's token log-probabilities as OpenAI's ``logprobs.content`` gives them (the embedded server writes the same,
tools/llm/server_entry.py): per generated token, its log-probability and the likeliest alternatives."""

from __future__ import annotations

from typing import TypedDict


class Alternative(TypedDict):
    token: str
    logprob: float
    bytes: list[int] | None


class TokenLogprob(Alternative):
    top_logprobs: list[Alternative]
