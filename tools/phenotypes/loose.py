"""Findings the recogniser reads loosely (a word skipped inside them, or a weaker synonym), those of them a clinical
reading of the same case names otherwise ("the whites of his eyes look blue" holds "eyes look blue", Blue irides by
a skipped word, where a doctor reads blue sclerae), and which of a model's clinical terms the case says anything
like."""

from __future__ import annotations

import re
from collections.abc import Sequence

from amg.tools.kg.pipeline_types import Named
from amg.tools.phenotypes.recognizer import Mention
from amg.tools.phenotypes.word_keys import keys

SURE = 1.0  # a finding read below this confidence is read loosely
# a model's clinical term is kept when one of its names comes this near a part of the case (MiniLM cosine; on the
# lay cases tried, the terms meant scored 0.57-0.79, those copied or wrong 0.21-0.49)
NEAR = 0.5
_PARTS = re.compile(r"[.,;:?!()]|\b(?:and|but|or|with|while)\b", re.IGNORECASE)


def loosely_read(mentions: list[Mention]) -> dict[str, str]:
    """Key: the words that name it, of each present finding in ``mentions`` read below ``SURE``."""
    return {m.key: m.text for m in mentions if not m.negated and m.confidence < SURE}


def misread(loose: dict[str, str], named: Sequence[Named]) -> set[str]:
    """The keys of ``loose`` whose words the clinical reading (``named``: [{key, name}]) names as another finding; a
    loose finding whose words none of its terms shares stays ("fingers are unusually long" as Long fingers beside
    arachnodactyly)."""
    terms = [(e["key"], set(keys(e["name"]))) for e in named]
    return {k for k, text in loose.items() if any(other != k and words & set(keys(text)) for other, words in terms)}


def near_the_case(text: str, names: dict[str, list[str]], *, embed, floor: float = NEAR) -> set[str]:
    """The keys of ``names`` (key: a term's name and synonyms, layperson ones among them) one of whose names comes
    within ``floor`` (cosine; ``embed(texts) -> unit vectors``) of a part of ``text`` (a clause, or an item of a
    list in it): what a small model names that the case says nothing like ("jaundice" for "the whites of his eyes
    look blue", copied from its prompt's examples) is left out."""
    parts = [p.strip() for p in _PARTS.split(text) if len(p.split()) > 1]
    if not parts or not names:
        return set()
    flat = [(key, name) for key, listed in names.items() for name in listed]
    vectors = embed([*parts, *(name for _, name in flat)])
    said, terms = vectors[: len(parts)], vectors[len(parts) :]
    near = set()
    for (key, _), vector in zip(flat, terms):
        if max(sum(a * b for a, b in zip(vector, part)) for part in said) >= floor:
            near.add(key)
    return near
