"""Findings the recogniser reads loosely (a word skipped inside them, or a weaker synonym), and those of them a
clinical reading of the same case names otherwise: "the whites of his eyes look blue" holds "eyes look blue", Blue
irides by a skipped word, where a doctor reads blue sclerae."""

from __future__ import annotations

from amg.tools.phenotypes.recognizer import Mention
from amg.tools.phenotypes.word_keys import keys

SURE = 1.0  # a finding read below this confidence is read loosely


def loosely_read(mentions: list[Mention]) -> dict[str, str]:
    """Key: the words that name it, of each present finding in ``mentions`` read below ``SURE``."""
    return {m.key: m.text for m in mentions if not m.negated and m.confidence < SURE}


def misread(loose: dict[str, str], named: list[dict]) -> set[str]:
    """The keys of ``loose`` whose words the clinical reading (``named``: [{key, name}]) names as another finding; a
    loose finding whose words none of its terms shares stays ("fingers are unusually long" as Long fingers beside
    arachnodactyly)."""
    terms = [(e["key"], set(keys(e["name"]))) for e in named]
    return {k for k, text in loose.items() if any(other != k and words & set(keys(text)) for other, words in terms)}
