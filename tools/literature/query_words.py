"""Search words of a question or an entity name: what both the local index and Entrez are sent."""

from __future__ import annotations

import re

WORD = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
STOP_WORDS = frozenset(
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it its "
    "may might more most no not of on or such than that the their them then there these they this those to "
    "was were what when where which while who whom why will with would should there's vs versus".split()
)


def query_words(text: str, limit: int = 32) -> list[str]:
    """The search words of ``text``: lower-cased, stop words dropped, each once, in order."""
    words = [w for w in WORD.findall(text.lower()) if w not in STOP_WORDS and len(w) > 1]
    return list(dict.fromkeys(words))[:limit]
