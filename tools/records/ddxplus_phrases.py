"""Key phrases of the DDXPlus evidences, derived from their questions: what a case must say to name one.

A question's frame ("Do you have", "Have you ever been diagnosed with") is left out and its other words kept as keys
(ddxplus_words: stems, with the lay words that stand for them), in any order: "Do you have a sore throat?" is
{sore, throat}, which "my throat hurts" holds ("hurts" keys {hurt, pain}, "sore" {sore, pain}). A question that asks
several things ("nasal congestion or a clear runny nose") gives each its own phrase; an aside in brackets is one more
when it is an acronym ("COPD") or the finding the question names ("(double vision)"), else it stands in for the word
before it ("diffuse (widespread) muscle pain": widespread muscle pain). A phrase the HPO term of the evidence names
whole (ddxplus_hpo) adds that term's names and synonyms ("shortness of breath": trouble breathing, panting).
Each key weighs its rarity across the questions (idf), so "pain" says less than "cough".
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from amg.tools.phenotypes.lexicon import Lexicon
from amg.tools.phenotypes.word_keys import key as stem
from amg.tools.phenotypes.word_keys import tokens
from amg.tools.records.ddxplus import Dictionary, Evidence
from amg.tools.records.ddxplus_words import (
    FAMILY_KEY,
    FILLER,
    FRAME,
    KIN,
    MOTHER,
    OTHER_KEY,
    OTHERS,
    ROLE_WORDS,
    word_keys,
)

_ASIDE = re.compile(r"\s*\(+([^()]*)\)")
_OR = re.compile(r"\bor\b(?!\s+(?:more|both|several|were|was)\b)|/", re.IGNORECASE)
_AND_OR = re.compile(r"\band/or\b", re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_ACRONYM = re.compile(r"[A-Z]{2,}s?")
_COMPARED = re.compile(
    r"\s*\b(?:compared (?:to|with)\b[^,?]*|than (?:usual|usually|normal|before|the general population)\b)",
    re.IGNORECASE,
)
HPO_LABEL_WEIGHT = 0.9  # names and exact/related synonyms only


@dataclass(frozen=True)
class Slot:
    keys: frozenset[str]  # a word of the case with any of these keys fills it
    weight: float  # idf of the word's own key


@dataclass(frozen=True)
class Phrase:
    evidence: str
    slots: tuple[Slot, ...]
    source: str  # question, part, aside, hpo
    text: str

    @property
    def weight(self) -> float:
        return sum(s.weight for s in self.slots)


def phrases(dictionary: Dictionary, terms: dict[str, list[str]] | None = None, lexicon: Lexicon | None = None):
    """Every evidence's phrases, {code: [Phrase]}; ``terms`` ({code: [HPO id]}, ddxplus_hpo) adds the names of the
    terms that name a phrase whole."""
    idf = _idf(dictionary)
    top = max(idf.values(), default=0.0)
    rare = {k for k, weight in idf.items() if weight >= top}  # words of one question only
    own = {code: ids[0] for code, ids in (terms or {}).items() if ids}
    texts = {code: _texts(e, lexicon, rare=rare, term=own.get(code, "")) for code, e in dictionary.evidences.items()}
    if terms and lexicon:
        for code, ids in terms.items():
            question = dictionary.evidences[code].question
            texts[code].extend(_term_texts(texts[code], ids, lexicon=lexicon, question=question))
    texts = {code: [(source, text) for source, text in listed if source != "single"] for code, listed in texts.items()}
    found: dict[str, list[Phrase]] = {}
    for code, listed in texts.items():
        seen: set[frozenset] = set()
        kept: list[Phrase] = []
        for source, text in listed:
            slots = _slots(text, idf, source)
            signature = frozenset(s.keys for s in slots)
            if slots and signature not in seen:
                seen.add(signature)
                kept.append(Phrase(code, slots, source, text))
        found[code] = kept
    return found


def core(question: str) -> str:
    """The question without its asides in brackets."""
    return _ASIDE.sub("", question).strip()


def asides(question: str) -> list[str]:
    return [m.group(1).strip() for m in _ASIDE.finditer(question) if m.group(1).strip()]


def asks_about_others(evidence: Evidence) -> bool:
    """A question about someone else's finding ("Have any of your family members ...", "contact with a person")."""
    words = {w.lower() for w in _WORD.findall(evidence.question)}
    return bool(words & (KIN | {"member", "members", "contact"}))


def role(evidence: Evidence, dictionary: Dictionary) -> str:
    """What a follow-up's values are about (ROLE_WORDS): the first role of its question's words, or of the question it
    follows ("Where is the affected region located?" follows the skin question); "" for none."""
    parent = dictionary.evidences.get(evidence.parent, evidence)
    for question in (evidence.question, parent.question):
        words = {w.lower() for w in _WORD.findall(question)}
        for name, cues in ROLE_WORDS.items():
            if words & set(cues):
                return name
    return ""


def _texts(evidence: Evidence, lexicon: Lexicon | None, *, rare: set[str], term: str = "") -> list[tuple[str, str]]:
    """The question (its comparison left out: "more saliva than usual"), each part of one that asks several things
    (a part of one word only when no other question has that word: "shivers", not "pain"), its asides."""
    question = _AND_OR.sub("and", evidence.question)
    whole = _COMPARED.sub("", core(question))
    found = [("question", whole)]
    parts = [_COMPARED.sub("", p).strip(" ,?:") for p in _OR.split(core(question))]
    if len(parts) > 1:
        listed = [item for part in parts[:-1] for item in part.split(",")] + [parts[-1]]
        for at, part in enumerate(listed[:-1]):  # "greenish or yellowish nasal discharge": greenish nasal discharge
            following = _content(listed[at + 1])
            next_words = tokens(listed[at + 1])
            adjective = next_words and following and next_words[0][0] == following[0]  # no frame between them
            if len(_content(part)) == 1 and len(following) > 1 and adjective:
                listed[at] = f"{part} {' '.join(following[1:])}"
        for part in listed:
            words = _content(part)
            if len(words) > 1:
                found.append(("part", part))
            elif words and stem(words[0]) in rare:
                found.append(("word", words[0]))
            elif words:
                found.append(("single", words[0]))  # kept only when the evidence's HPO term names it ("asthma")
    for aside in asides(question):
        words = _content(aside)
        if not words:
            continue
        named = _named_term(aside, lexicon) if lexicon and len(words) > 1 else ""
        if _ACRONYM.fullmatch(aside) or (named and term in ("", named)):
            # an aside naming a finding stands alone when the question names no other ("(double vision)"), not
            # when it glosses one part of it ("a heart attack or angina (chest pain)": chest pain is no E_105)
            found.append(("aside", aside))
        elif len(words) == 1:  # a gloss of the word before it: "diffuse (widespread)", "fast (racing)"
            before = question[: question.find(f"({aside}")].rstrip()
            glossed = before.rsplit(" ", 1)[0] + " " + aside + question[question.find(f"({aside})") + len(aside) + 2 :]
            found.append(("aside", core(glossed)))
    return found


def _term_texts(listed: list[tuple[str, str]], ids: list[str], *, lexicon: Lexicon, question: str):
    """The names of each term that names one of the evidence's phrases (every word of it): all of
    the evidence's own term's (the first), of the others only their name and the names that share a word with the
    question (E_156's "weakness" is Asthenia, whose "lack of energy" is no facial palsy)."""
    asked = {stem(w) for w in _content(question)}
    found = []
    for rank, term_id in enumerate(ids):
        term = lexicon.terms.get(term_id)
        if term is None:
            continue
        names = {stem(w) for label, _ in term.labels for w in _content(label)}
        if any(_nearly_all(_content(text), names) for _, text in listed):
            for label, weight in term.labels:
                shares = label == term.name or {stem(w) for w in _content(label)} & asked
                if weight >= HPO_LABEL_WEIGHT and (rank == 0 or shares):
                    found.append(("hpo", label))
    return found


def _nearly_all(words: list[str], names: set[str]) -> bool:
    """Whether a term's names hold every word of a phrase ("chest pain" is not all of "chest pain even at rest")."""
    keys = {stem(w) for w in words}
    return bool(keys) and keys <= names


def _content(text: str) -> list[str]:
    """The words of a question that say what it asks (its frame, filler and stop words and numbers left out), split
    as the reader splits a case's words ("1cm": 1, cm)."""
    words = tokens(text.replace("’", "'"))
    return [w for w, _, _ in words if w.lower() not in FRAME | FILLER and not w.isdigit() and stem(w)]


def _slots(text: str, idf: dict[str, float], source: str = "") -> tuple[Slot, ...]:
    slots, seen = [], set()
    for word in _content(text):
        own = stem(word)
        keys = word_keys(word)
        if word.lower() in KIN:  # "family members", "your mother": any kin word fills it
            keys = frozenset({stem("mother")} if word.lower() in MOTHER else {FAMILY_KEY})
        elif word.lower() in OTHERS:
            keys = frozenset({OTHER_KEY})
        if own in seen:
            continue
        seen.add(own)
        slots.append(Slot(keys, idf.get(own, max(idf.values(), default=1.0))))
    return tuple(slots)


def _idf(dictionary: Dictionary) -> dict[str, float]:
    counts: Counter[str] = Counter()
    for evidence in dictionary.evidences.values():
        counts.update({stem(w) for w in _content(evidence.question)})
    total = len(dictionary.evidences)
    return {k: math.log((1 + total) / (1 + n)) + 1.0 for k, n in counts.items()}


def _named_term(text: str, lexicon: Lexicon) -> str:
    """The HPO term whose label's words are the text's ("" for none)."""
    return lexicon.labels.get(frozenset(stem(w) for w in _content(text)), (0.0, ""))[1]
