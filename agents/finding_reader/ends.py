"""How a study finding's ends are worded: in full, on the question's entities, short enough to be an entity,
and named by the abstract or the question. agents/finding_reader/reader.py grounds a finding with these, and
agents/claim_checker/findings.py a claim check's, which also refuses a subject that is only the arm a trial compared
against (``comparison_arm``).

A model names a finding's ends the way the paper's sentence does: often longer than an entity ("tumour response to
pre-operative chemo-radiotherapy in locally advanced rectal cancer", cut to its head by ``head_of``) or a word
apart from both the abstract's and the question's wording ("Type 2 diabetes mellitus", "adrenal mass").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from abbreviations.schwartz_hearst import extract_abbreviation_definition_pairs

from amg.tools.kg.pipeline_types import Named
from amg.tools.kg.schema import normalize_key
from amg.tools.literature.query_words import query_words

MAX_END_WORDS = 8  # a longer name is not an entity (tools/kg/grounding.py is_generic)
# words that open a qualifier of a name: "... in locally advanced rectal cancer", "... during sitting positioning"
QUALIFIERS = frozenset(
    "in during on among after before whose who which that with without at for from when while "
    "did does was were is are versus vs compared by".split()
)
DANGLING = frozenset("both and or the a an of to".split())  # words a name does not end on
_VERSUS = re.compile(r"\b(?:versus|vs\.?|compared (?:with|to))\s", re.IGNORECASE)
_ARM = re.compile(
    r"\b(?:placebos?|sham|controls|control (?:group|arm|subjects?|participants?|patients?|condition))\b"
    r"|^\W*control\W*$",
    re.IGNORECASE,
)  # "glycaemic control" is an intervention; "controls", "the control group" are the arm compared against


def head_of(name: str) -> str:
    """A name of more than ``MAX_END_WORDS`` words cut before its first qualifier ("tumour response to
    pre-operative chemo-radiotherapy in locally advanced rectal cancer": "tumour response to pre-operative
    chemo-radiotherapy"); a shorter name, or one with no qualifier, as it is."""
    words = name.split()
    if len(words) <= MAX_END_WORDS:
        return name
    cut = next((i for i, word in enumerate(words) if i and word.lower().strip(",;:()") in QUALIFIERS), None)
    head = words[:cut] if cut else words
    while head and head[-1].lower() in DANGLING:
        head.pop()
    return " ".join(head) or name


def end_named(name: str, said: set[str]) -> bool:
    """Whether ``said`` (the content words of the abstract and the question) names ``name``: every word of it, or
    all but one of a name of three words or more (a variant: "Type 2 diabetes mellitus" of a paper on "type 2
    diabetes", "adrenal mass larger than 7 cm" of one on "adrenal masses")."""
    words = named_words(name)
    unnamed = len(words - said)
    return unnamed == 0 or (unnamed == 1 and len(words) >= 3)


def on_question_entities(ends: tuple[str, str], entities: Sequence[Named]) -> tuple[str, str]:
    """Both ends on the question's entities; when both hold the same one ("ankylosing spondylitis patients",
    "ankylosing spondylitis activity": 9 findings of 200 were refused as self-relations), only the shorter end
    is written as it, the other as the abstract names it."""
    snapped = [on_question_entity(name, entities) for name in ends]
    if normalize_key(snapped[0]) == normalize_key(snapped[1]) and normalize_key(ends[0]) != normalize_key(ends[1]):
        longer = int(len(ends[1]) > len(ends[0]))
        snapped[longer] = ends[longer]
    return snapped[0], snapped[1]


def on_question_entity(name: str, entities: Sequence[Named]) -> str:
    """``name``, or the longest question entity whose words it holds in order ("quality assurance" in
    "quality assurance programmes in day surgery"; "peri-sinusoidal cell activity" in "perisinusoidal cell
    activity in the liver")."""

    def holds(entity: str) -> bool:
        return any(
            key(entity) and f" {key(entity)} " in f" {key(name)} "
            for key in (normalize_key, lambda text: normalize_key(text.replace("-", "")))
        )

    held = [e["name"] for e in entities if holds(e["name"])]
    return max(held, key=len) if held else name


def abbreviations_in(text: str) -> dict[str, str]:
    """The abbreviations ``text`` defines, with their long forms ("small for gestational age (SGA)")."""
    return extract_abbreviation_definition_pairs(doc_text=" ".join(text.split()))


def spelled_out(name: str, defined: dict[str, str]) -> str:
    """``name`` with each abbreviation of ``defined`` written in full ("low HDL-C": "low high-density lipoprotein
    cholesterol"): the question and the graph name things in full, the model copies the abstract's short forms."""
    return " ".join(defined.get(word.strip(",.;:()"), word) for word in name.split())


def content_words(text: str) -> set[str]:
    """Content words, singular ("programmes" and "programme" are one); a hyphenated word also as one word and as
    its parts ("peri-sinusoidal" holds "perisinusoidal", "peri" and "sinusoidal")."""
    found = set()
    for word in query_words(text, limit=100_000):
        key = normalize_key(word)
        found |= {key.replace(" ", ""), *key.split()}
    return found


def named_words(name: str) -> set[str]:
    """The words of a name, each written as one word ("peri-sinusoidal" is "perisinusoidal")."""
    return {normalize_key(word).replace(" ", "") for word in query_words(name, limit=100_000)}


def comparison_arm(subject: str) -> bool:
    """Whether ``subject``, before any "versus ..." it is compared with, names a placebo, sham or control arm: what a
    trial compared against, which snapped onto the question's or claim's intervention ("aspirin placebo" is not
    aspirin) would write the opposite finding."""
    tested = _VERSUS.split(subject, maxsplit=1)[0]
    return bool(_ARM.search(tested))
