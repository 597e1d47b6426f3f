"""Judging an open answer against a multiple-choice item's options, for the open-answer benchmark.

The question is asked without its options; its answer is then mapped onto them. Verdict options
(yes / no / maybe) are judged by the verdict the answer commits to; other options by an option text the answer
names word for word, or whose own words (those no other option has) it holds, when exactly one is; else by the
option text nearest to the answer in the embedder's space (cosine similarity) when it is near enough and nearer
than the next one by a margin. An answer that stands for no option (it talks around the question, or sits between
two options) is judged as none: a right answer by luck of proximity is not a right answer.
"""

from __future__ import annotations

import re

_HEDGE = re.compile(
    r"\b(?:may|might|could|possibly|unclear|uncertain|not (?:yet )?(?:known|clear|established)|"
    r"inconclusive|insufficient|remains? to be)\b",
    re.IGNORECASE,
)
NEAR_ENOUGH, MARGIN = 0.35, 0.05  # cosine to the nearest option, and its lead over the next (checked by hand)
_STOP = frozenset(
    "a an the of and or in on at to for by with without from is are was were be been it its this that these those "
    "which who what as not no s".split()
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
    own = _own_words(options)
    held = set(said.split())
    named = [letter for letter, words in own.items() if words and words <= held]
    if len(named) == 1:
        return named[0]
    vectors = embed([answer, *options.values()])
    scores = sorted(((float(vectors[0] @ v), letter) for letter, v in zip(options, vectors[1:])), reverse=True)
    best, runner_up = scores[0], scores[1] if len(scores) > 1 else (-1.0, None)
    return best[1] if best[0] >= NEAR_ENOUGH and best[0] - runner_up[0] >= MARGIN else None


def _own_words(options: dict[str, str]) -> dict[str, set[str]]:
    """Each option's content words that no other option has ("bartholin" in "Bartholin's")."""
    words = {k: set(_plain(v).split()) - _STOP for k, v in options.items()}
    return {k: w - set().union(*(words[o] for o in options if o != k)) for k, w in words.items()}


def _plain(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))
