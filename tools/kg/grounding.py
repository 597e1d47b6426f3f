"""What a model-extracted fact needs before it enters the graph, and what the audit checks later.

- Both endpoints are medical entities: never generic words (textbook, study, patient, entity...).
- The relation rests on an evidence item whose text names both endpoints (by name or alias;
  case-, punctuation- and plural-insensitive, through ``normalize_key``). Its sentence names one
  end; the other, if the sentence only refers to it ("its", "long-term use"), is named in that
  sentence of the item or the one right before (further back while those refer back, "It is …"):
  a pronoun or an elided subject points back that far, not to a topic named paragraphs earlier
  ("Long-term use can lower vitamin B12 levels", two sentences after type 2 diabetes is named,
  is about metformin, not a risk factor for diabetes).
- The endpoints' types fit the relation ("Type 2 diabetes treats metformin" is refused: a
  disease treats nothing). A drug's "symptom" is read as its adverse effect; so is a "symptom"
  the drug is named as, when the sentence states an adverse effect or a cause. An endpoint of
  unknown type (``other``) is not held against it.
- A class the sentence spells out after a colon stands for its members: "adverse effects of
  metformin are gastrointestinal: diarrhea, nausea and abdominal discomfort" gives one relation
  to each of the three, not one to "gastrointestinal" (a small model names the class).
- A "causes" relation needs a sentence that states a cause: "it lowers blood glucose" is not
  "Metformin causes blood glucose". A "symptom_of" relation cannot
  rest on a sentence about a treatment's adverse effects.
- A description that echoes the prompt or the tool schema instead of the evidence is refused.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from amg.tools.kg.schema import ACTS, RELATIONS, normalize_key
from amg.tools.literature.sentences import split_sentences

GENERIC_TERMS = frozenset(
    normalize_key(w)
    for w in (
        "all patient patients man woman child adult people year old history treatment therapy disease finding "
        "most common following which what best likely cause effect type normal day week month "
        "textbook book chapter evidence study studies trial trials article paper review author authors result results "
        "entity entities relation relations data information source sources case report reports drug drugs medication "
        "condition conditions symptom symptoms sign signs research researcher clinician doctor physician hospital "
        "unknown none other something thing"
    ).split()
)


# relation type -> (types its source may have, types its target may have); None = any
SIGNATURES = {r.name: (r.sources, r.targets) for r in RELATIONS}


_CAUSAL = re.compile(
    r"\b(?:causal(?:ly)?|(?:caus|induc|produc|provok|precipitat)(?:e|es|ed|ing)|trigger(?:s|ed|ing)?|"
    r"lead(?:s|ing)? to|led to|result(?:s|ed|ing)? in|due to|because of|responsible for|"
    r"secondary to)\b",
    re.IGNORECASE,
)
_ADVERSE = re.compile(
    r"\b(?:side[- ]effects?|adverse (?:effects?|reactions?|events?)|toxicit(?:y|ies)|intoleran(?:ce|t))\b",
    re.IGNORECASE,
)
# relation type -> (a pattern its sentence must match, one it must not match, why it was refused)
_SENTENCE_RULES: dict[str, tuple[re.Pattern | None, re.Pattern | None, str]] = {
    "causes": (_CAUSAL, None, "its sentence states no cause"),
    "symptom_of": (None, _ADVERSE, "its sentence names a treatment's adverse effect, not a symptom of the disease"),
}


def sentence_problem(rel_type: str, sentence: str) -> str | None:
    """Why ``sentence`` cannot ground a relation of ``rel_type``, or None.

    "causes" needs a sentence that states a cause; "symptom_of" cannot rest on a sentence about
    adverse effects ("The most common adverse effects of metformin are ... diarrhea" is not
    "Diarrhea is a symptom of type 2 diabetes", read off a sentence about metformin's side effects)."""
    required, forbidden, why = _SENTENCE_RULES.get(rel_type, (None, None, ""))
    if not sentence.strip():
        return None
    if (required is not None and not required.search(sentence)) or (
        forbidden is not None and forbidden.search(sentence)
    ):
        return why
    return None


def fitting_type(
    rel_type: str, source_type: str | None, *, target_type: str | None, sentence: str = ""
) -> tuple[str, bool]:
    """``rel_type``, or its only sensible reading where the types rule it out, and whether the ends swap: a drug's
    or procedure's "symptom" is its adverse effect; with the drug as the "symptom", only when the sentence states
    an adverse effect or a cause ("Metoclopramide relieves nausea" is no adverse effect)."""
    if rel_type == "symptom_of" and target_type in ACTS:
        return "adverse_effect_of", False
    if rel_type == "symptom_of" and source_type in ACTS and (_ADVERSE.search(sentence) or _CAUSAL.search(sentence)):
        return "adverse_effect_of", True
    return rel_type, False


# the list a colon opens, up to the clause that ends it (", which are reduced by ...", "; ...", ". ")
_LISTED = re.compile(
    r"^\s*:\s*(?P<items>[^:;.()]+?)\s*(?:,\s*(?:which|that|who|where|as|but|with|in|for)\b|[;.()]|$)", re.IGNORECASE
)
_LIST_SPLIT = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", re.IGNORECASE)
MAX_MEMBER_WORDS = 4


def listed_members(name: str, sentence: str) -> list[str]:
    """The items ``sentence`` lists right after ``name`` and a colon ("gastrointestinal: diarrhea, nausea and
    abdominal discomfort" -> the three), or [] when it lists none there."""
    key = re.escape(name.strip())
    if not key:
        return []
    found = re.search(rf"(?<!\w){key}(?!\w)", sentence, re.IGNORECASE)
    listed = found and _LISTED.match(sentence[found.end() :])
    if not listed:
        return []
    items = [i.strip() for i in _LIST_SPLIT.split(listed["items"]) if i.strip()]
    if not items or any(len(i.split()) > MAX_MEMBER_WORDS for i in items):
        return []
    return items


def signature_problem(rel_type: str, source_type: str | None, target_type: str | None) -> str | None:
    """Why the endpoints' types do not fit ``rel_type``, or None (unknown types always fit)."""
    allowed_source, allowed_target = SIGNATURES.get(rel_type, (None, None))
    for role, kind, allowed in (("source", source_type, allowed_source), ("target", target_type, allowed_target)):
        if allowed is not None and kind not in (None, "", "other") and kind not in allowed:
            return f"a {kind} cannot be the {role} of {rel_type}"
    return None


def is_generic(name: str) -> bool:
    """True for names that are not a specific medical entity."""
    key = normalize_key(name)
    return not key or key in GENERIC_TERMS or len(key) < 3 or key.replace(" ", "").isdigit() or len(key.split()) > 8


def mentions(text: str, names: list[str]) -> bool:
    """Whether ``text`` names any of ``names`` as whole words (normalised like entity keys)."""
    haystack = f" {normalize_key(text)} "
    return any(f" {key} " in haystack for key in {normalize_key(n) for n in names} if key)


# words that open a sentence about something named before it ("It is used to prevent stroke.")
_REFERRING = frozenset("it its they their them this these that those such both he she his her".split())
_PRONOUNS = frozenset("it its they their them".split())
_WORDS = re.compile(r"[a-z]+")


def _refers_back(sentence: str) -> bool:
    """Whether ``sentence`` is about something named before it: it opens with a referring word ("It is used …",
    "These drugs …") or with a participle whose subject is a pronoun ("Taken with nitrates it can cause …")."""
    words = _WORDS.findall(sentence.lower())
    if not words:
        return False
    return words[0] in _REFERRING or (words[0].endswith(("ed", "en", "ing")) and not _PRONOUNS.isdisjoint(words[1:]))


def with_sentence_before(text: str, quoted: str) -> str:
    """The sentences of ``text`` that ``quoted`` (a sentence, part of one or a run of them, compared as
    ``normalize_key`` words) lies in, with the sentence right before them, and further back while that one is about
    something named before it ("It is used …"); "" when ``quoted`` is not in ``text``."""
    wanted = normalize_key(quoted).split()
    sentences = split_sentences(text)
    words, owner = [], []  # the text's words, and the sentence each one is in
    for index, sentence in enumerate(sentences):
        for word in normalize_key(sentence).split():
            words.append(word)
            owner.append(index)
    for start in range(len(words) - len(wanted) + 1) if wanted else ():
        if words[start : start + len(wanted)] == wanted:
            first, last = owner[start], owner[start + len(wanted) - 1]
            first = max(first - 1, 0)
            while first and _refers_back(sentences[first]):
                first -= 1
            return " ".join(sentences[first : last + 1])
    return ""


def echoes(text: str, sources: Sequence[str], size: int = 4) -> bool:
    """Whether most of ``text``'s word runs (``size`` words) come from ``sources`` (the prompt, the schema)."""
    words = normalize_key(text).split()
    runs = {tuple(words[i : i + size]) for i in range(max(len(words) - size + 1, 1))}
    seen = set()
    for source in sources:
        found = normalize_key(source).split()
        seen |= {tuple(found[i : i + size]) for i in range(max(len(found) - size + 1, 1))}
    return bool(runs) and len(runs & seen) * 2 >= len(runs)
