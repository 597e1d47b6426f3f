"""Judging an open answer against a multiple-choice item's options, for the open-answer benchmark.

The question is asked without its options; its answer is then mapped onto them. Verdict options
(yes / no / maybe) are judged by the verdict the answer commits to; other options by the option text
nearest to the answer in the embedder's space (cosine similarity), or by an option text the answer
names word for word when exactly one is named.
"""

from __future__ import annotations

import re

_HEDGE = re.compile(
    r"\b(?:may|might|could|possibly|unclear|uncertain|not (?:yet )?(?:known|clear|established)|"
    r"inconclusive|insufficient|remains? to be)\b",
    re.IGNORECASE,
)
_YES = re.compile(r"^\W*(?:yes|yeah|indeed|correct|true)\b", re.IGNORECASE)
_NO_FIRST = re.compile(r"^\W*(?:no|not|none|false)\b", re.IGNORECASE)
_NO = re.compile(r"\b(?:no|not|never|none|neither|nor|cannot)\b|n't\b", re.IGNORECASE)


def verdict_of(answer: str) -> str:
    """ "yes", "no" or "maybe": what an open answer to a research question commits to. Its first word decides when
    it is a verdict; else a hedge ("may", "unclear") is maybe, a negation ("there is no role") no, a claim yes."""
    if _YES.search(answer):
        return "yes"
    if _NO_FIRST.search(answer):
        return "no"
    if _HEDGE.search(answer):
        return "maybe"
    return "no" if _NO.search(answer) else "yes"


def judged_option(answer: str, options: dict[str, str], embed) -> str | None:
    """The option letter ``answer`` stands for; ``embed(texts) -> unit vectors`` (rows) for the nearest text."""
    if not answer.strip() or not options:
        return None
    words = {text.strip().strip(".").lower(): letter for letter, text in options.items()}
    if {"yes", "no"} <= set(words) <= {"yes", "no", "maybe"}:
        return words.get(verdict_of(answer))
    said = f" {_plain(answer)} "
    named = [letter for letter, text in options.items() if _plain(text) and f" {_plain(text)} " in said]
    if len(named) == 1:
        return named[0]
    vectors = embed([answer, *options.values()])
    scores = [float(vectors[0] @ v) for v in vectors[1:]]
    return list(options)[scores.index(max(scores))]


def _plain(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))
