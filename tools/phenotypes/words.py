"""Word forms that compare equal across morphology: a token's key is its Snowball stem, folded further.

"dislocated" and "dislocation" share the stem "disloc"; "lens" and "lenses", "axilla", "axillae" and
"axillary", "aorta" and "aortic" share a key once a plural s and an adjectival or Latin ending are dropped.
A few words a clinician uses for a term's word are folded into it ("several" into "multiple", "skin" into
"cutaneous"; after FastHPOCR's base synonyms). Stop words carry no meaning for the match and are skipped.
"""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

_STEMMER = snowballstemmer.stemmer("english")
TOKEN = re.compile(r"[A-Za-z][A-Za-z']*|\d+")
ENDINGS = ("ari", "al", "ic", "ous", "ae", "a", "um", "us", "e")  # after stemming: axillari, aortic, aorta
MIN_ROOT = 4
STOP = frozenset(
    "a an the of in on at to for from by with and or both either "
    "his her their its is are was were be been has have had very some any this that these those "
    "who which whose as into onto over under".split()  # fmt: skip
)
# words with one meaning for the match: a clinician's word -> the word HPO's labels use
SAME = {
    "several": "multiple", "numerous": "multiple", "many": "multiple", "skin": "cutaneous",
    "swelling": "edema", "oedema": "edema", "heart": "cardiac", "kidney": "renal", "lung": "pulmonary",
    "belly": "abdomen", "tummy": "abdomen", "elevated": "increased", "raised": "increased",
    "enlarged": "increased", "diminished": "decreased", "reduced": "decreased", "lump": "mass",
    "widened": "dilatation",
}  # fmt: skip


_NUMBER = r"(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a dozen)"
# "more than six cafe-au-lait spots" is "multiple cafe-au-lait spots"
QUANTITY = re.compile(rf"(?:\b(?:more than|over|at least|greater than|in excess of)\s+|[>≥]\s*){_NUMBER}\b|"
                      rf"\b(?:dozens of|{_NUMBER} or more)\b", re.IGNORECASE)  # fmt: skip


@lru_cache(maxsize=100_000)
def key(word: str) -> str:
    """The comparison key of one word ("" for a stop word)."""
    word = word.lower().replace("'", "")
    if word in STOP:
        return ""
    word = SAME.get(word, word)
    stem = _STEMMER.stemWord(word)
    if stem.endswith("s") and not stem.endswith("ss") and len(stem) > 3:
        stem = stem[:-1]
    for ending in ENDINGS:
        if stem.endswith(ending) and len(stem) - len(ending) >= MIN_ROOT:
            return stem[: -len(ending)]
    return stem


def tokens(text: str) -> list[tuple[str, int, int]]:
    """(word, start, end) of each word or number in ``text``."""
    return [(m.group(), m.start(), m.end()) for m in TOKEN.finditer(text)]


def keys(text: str) -> tuple[str, ...]:
    """The keys of a label's meaningful words, in order."""
    return tuple(k for k in (key(w) for w, _, _ in tokens(text)) if k)
