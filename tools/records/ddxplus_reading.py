"""A DDXPlus case told as free text -> its DDXPlus evidences: those present (with their values), those denied, the
patient's age and sex, and where in the text each came from.

The text is cut into statements and clauses (ddxplus_statements). A clause names an evidence when it holds one of
its key phrases (ddxplus_phrases: keys of its question's words, a patient's words for them, the HPO synonyms of its
term), in any order and form: "I've been coughing" holds {cough}; a phrase of three keys or more is named when its
words found weigh ``coverage`` of it. Of two evidences named by the same words, the one naming more of them wins
("coughing up blood": E_45, not E_201). A finding said of someone else ("my mother has asthma") names only an evidence
about others. A clause that names none is compared with every yes/no evidence's question, in its own and in the first
person, and its phrases (MiniLM cosine): the nearest one at ``near`` or more is named; so is one whose phrase the
clause nearly holds (NEAR_MISS) when its question is the clause's nearest. A question's answer says yes or no ("Do
you have a cough? No."), else a denial over any word of the phrase in the clause does ("I don't smoke", "my throat
isn't sore"). A statement that speaks of nothing new goes on with the topic of the one before ("The pain is in my
chest. It feels sharp. They don't peel off": its kind, the rash's lesions).
Values: places are read where a place question's role is spoken of (the nearest of "pain", "spreads to", "rash",
"swelling" before them: "the pain is in my forehead and spreads to my jaw"), kinds of pain where pain is, colours
where a rash is, regions where travel is, grades by the scale whose aspect the clause speaks of ("5/10" of "how bad",
"came on suddenly": how fast). A denied question with a "N" value takes it ("I haven't travelled": E_204 N), a
denied place question "nowhere" ("it doesn't spread"), a denied scale 0 ("the rash is not swollen"). A follow-up
read with a value names the question it follows (a place of pain: E_53, a pain).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from amg.tools.phenotypes.lexicon import Lexicon, hpo_lexicon
from amg.tools.records.ddxplus import BINARY, NOWHERE, Dictionary, Evidence, join_code
from amg.tools.records.ddxplus_hpo import TABLE, HpoLink, evidence_terms, hpo_links, read_table
from amg.tools.records.ddxplus_phrases import Phrase, asks_about_others, core, phrases, role
from amg.tools.records.ddxplus_statements import Clause, Statement, age_and_sex, denied, statements
from amg.tools.records.ddxplus_values import Found, Named, Places, grades, worded_grade
from amg.tools.records.ddxplus_words import (
    ASPECT_CUES,
    FAMILY_KEY,
    GRADE_WORDS,
    OTHER_KEY,
    ROLE_CUES,
    Token,
    about_others,
    read_tokens,
)
from amg.tools.records.ddxplus_words import word_keys as keys_of
from amg.tools.records.vectors import Embed, minilm

COVERAGE = 0.65  # of a phrase's weight its words found must hold (three keys or more; chosen on the fit half)
NEAR = 0.70  # MiniLM cosine a clause must come to an evidence's question to name it (chosen on the fit half)
MIN_WORDS = 2  # words a clause needs to be compared by meaning
NEAR_MISS = 0.4  # share of a phrase a clause's words hold for its meaning to decide
RADIATION = "radiation"  # the role of the place question a denial answers "nowhere" ("it doesn't spread")
_ASPECT_ORDER = ("swollen", "itching", "fast", "precisely", "intense")
_FRAMES = (
    (re.compile(r"^(?:do|did) you (?:currently |regularly |ever |suddenly |constantly )?", re.I), "I "),
    (re.compile(r"^have you (ever |recently )?", re.I), r"I have \1"),
    (re.compile(r"^are you ", re.I), "I am "),
    (re.compile(r"^(?:is|are) your (\w+) ", re.I), r"my \1 is "),
    (re.compile(r"^does your (\w+) ", re.I), r"my \1 "),
    (re.compile(r"^were you ", re.I), "I was "),
)
_PRONOUNS = ((re.compile(r"\byourself\b", re.I), "myself"), (re.compile(r"\byour\b", re.I), "my"))
_YOU = re.compile(r"\byou\b", re.I)


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str
    how: str  # phrase, answer, value, grade, meaning (embedding), follows (a follow-up's question)


@dataclass(frozen=True)
class CaseReading:
    present: tuple[str, ...]  # E_91, E_55_@_V_89, E_56_@_5; a value question read without its value by its code alone
    absent: tuple[str, ...]  # yes/no evidences the text denies
    age: int | None
    sex: str | None  # F or M
    spans: dict[str, Span] = field(default_factory=dict)  # code (present or absent) -> where it was read


def read_case(text: str, dictionary: Dictionary, *, embed: Embed | None = None, semantic: bool = True) -> CaseReading:
    """The evidences ``text`` tells. ``semantic`` compares clauses no key phrase names with the questions by meaning
    (MiniLM, or ``embed``); the reader for a dictionary is built once (phrases, HPO terms, question vectors)."""
    return reader(dictionary, embed=embed if semantic else None, semantic=semantic).read(text)


@lru_cache(maxsize=4)
def reader(dictionary: Dictionary, *, embed: Embed | None = None, semantic: bool = True) -> CaseReader:
    return CaseReader(dictionary, embed=(embed or minilm()) if semantic else None)


@dataclass
class _Match:
    code: str
    coverage: float
    weight: float
    positions: frozenset[int]  # token indexes (of the statement) it was read from
    how: str
    whole: float = 0.0  # share of the evidence's whole question the words hold
    size: int = 0  # words of its whole question: of two read alike, the plainer question wins ("COPD": E_123)


class CaseReader:
    """A dictionary's phrases, values and question vectors, ready to read cases."""

    def __init__(
        self,
        dictionary: Dictionary,
        *,
        lexicon: Lexicon | None = None,
        embed: Embed | None = None,
        coverage: float = COVERAGE,
        near: float = NEAR,
    ):
        self.dictionary = dictionary
        self.coverage, self.near = coverage, near
        lexicon = lexicon or hpo_lexicon()
        evidences = dictionary.evidences
        self.terms = evidence_terms(_links(dictionary, lexicon, embed))
        self.phrases = phrases(dictionary, self.terms, lexicon)
        self.flat: list[Phrase] = [p for listed in self.phrases.values() for p in listed]
        self.index: dict[str, list[tuple[int, int]]] = {}
        for p, phrase in enumerate(self.flat):
            for s, slot in enumerate(phrase.slots):
                for key in slot.keys:
                    self.index.setdefault(key, []).append((p, s))
        self.others = {code for code, e in evidences.items() if asks_about_others(e)}
        self.roles = {code: role(e, dictionary) for code, e in evidences.items()}
        self.place_of = {self.roles[c]: c for c, e in evidences.items() if _places(e)}  # role -> place question
        place_question = next((evidences[c] for c in self.place_of.values()), None)
        self.places = Places(place_question) if place_question else None
        self.named = {
            c: Named(e)
            for c, e in evidences.items()
            if e.kind != BINARY and not e.scale and not e.yes_no and not _places(e) and e.values
        }
        self.scales = {c: _aspect(e) for c, e in evidences.items() if e.scale}
        self.cue_roles = {keys: name for name, words in ROLE_CUES.items() for keys in map(_key_set, words.split())}
        self.role_keys = {
            name: frozenset(k for w in words.split() for k in _key_set(w)) for name, words in ROLE_CUES.items()
        }
        self.aspect_cues = {
            name: {k for w in words.split() for k in _key_set(w)} for name, words in ASPECT_CUES.items()
        }
        self.embed = embed
        self.choices: list[str] = []  # evidence per question vector
        self.vectors = np.zeros((0, 1), np.float32)
        if embed is not None:
            texts = []
            for code, evidence in evidences.items():
                if evidence.kind == BINARY or evidence.yes_no:
                    for text in _variants(evidence, self.phrases[code]):
                        texts.append(text)
                        self.choices.append(code)
            self.vectors = embed(texts)
        self.rows = {c: [i for i, x in enumerate(self.choices) if x == c] for c in dict.fromkeys(self.choices)}
        self.index_keys = {
            c: frozenset(k for p in listed for s in p.slots for k in s.keys) for c, listed in self.phrases.items()
        }

    def read(self, text: str) -> CaseReading:
        age, sex = age_and_sex(text)
        tokens = read_tokens(text)
        state = _State()
        readings: list[_Reading] = []
        topic: tuple[str, ...] = ()
        for statement in statements(text):
            words = [t for t in tokens if statement.start <= t.start < statement.end]
            reading, topic = self._lexical(statement, words, topic)
            readings.append(reading)
        vectors = self._clause_vectors(text, readings)
        for reading in readings:
            self._statement(text, reading, vectors=vectors, state=state)
        self._follow_ups(state)
        valued = {c.partition("_@_")[0] for c in state.present if "_@_" in c}
        present = tuple(c for c in state.present if c not in valued)  # a question read with its values: those
        absent = tuple(c for c in state.absent if c not in state.present_bases())
        return CaseReading(present, absent, age, sex, state.spans)

    # -- one statement ---------------------------------------------------------------------------------------------
    def _lexical(
        self, statement: Statement, words: list[Token], topic: tuple[str, ...]
    ) -> tuple[_Reading, tuple[str, ...]]:
        """The statement's key phrases and named values, the clauses left to compare by meaning, and the topic after
        it. A statement that speaks of no role and names no finding of its own goes on with the topic before it
        ("The pain is in my chest. It feels sharp. I'd rate it 7/10.": a kind and a grade of that pain)."""
        cues = self._cues(words)
        asked = [i for i, t in enumerate(words) if t.start < statement.question_end]
        inside = {id(c): [i for i in asked if c.start <= words[i].start < c.end] for c in statement.clauses}
        matched = [(m, c) for c in statement.clauses for m in self._phrases(words, inside[id(c)])]
        own = any(not self.roles.get(m.code) for m, _ in matched)
        if not cues and not own and topic:
            cues = [(-1, name) for name in topic]
            # the topic fills a longer phrase's word for it ("They don't peel off": the lesions; "It's worse when
            # I breathe in deeply": the pain)
            matched = [(m, c) for c in statement.clauses for m in self._phrases(words, inside[id(c)], topic=topic)]
        # a kind of pain, a colour: read on words no phrase of several words holds; a phrase inside one is none
        # ("a knife stroke" is a kind of pain, no stroke; "lifting a weight" is part of E_221, no heavy pain)
        held = {i for m, _ in matched if len(m.positions) > 1 for i in m.positions}
        valued = self._named_values(words, cues, held)
        placed = set()
        if self.places:  # a long phrase read only from places and pain words is a place told ("pain in my head, neck")
            placed = {i for f in self.places.find(words) for i in range(f.first, f.last + 1)}
            placed |= {i for i, r in cues if r == "pain"}
            matched = [(m, c) for m, c in matched if m.size < 3 or not m.positions <= placed]
        in_values = {i for _, f in valued for i in range(f.first, f.last + 1)}
        matched = [(m, c) for m, c in matched if not m.positions <= in_values]
        left = [
            (c, inside[id(c)])
            for c in statement.clauses
            if inside[id(c)] and not any(k is c for _, k in matched) and not self._values_in(words, inside[id(c)])
        ]
        doubtful = []
        if self.embed is not None:
            for clause in statement.clauses:
                nearly: list[tuple[str, frozenset[int]]] = []
                self._phrases(words, inside[id(clause)], doubtful=nearly)
                read = {m.code for m, c in matched if c is clause}
                for code, positions in nearly:  # not from a pain's places ("it hurts in my chest" is no E_14)
                    if code not in read and not positions <= placed:
                        doubtful.append((code, clause, inside[id(clause)]))
        topic = tuple(dict.fromkeys(r for _, r in cues)) if cues else topic  # "The rash hurts": rash and pain
        return _Reading(statement, words, cues, matched, valued, in_values, left, doubtful), topic

    def _clause_vectors(self, text: str, readings: list[_Reading]) -> dict[tuple[int, int], np.ndarray]:
        """One batch of vectors for every clause left to compare by meaning (of MIN_WORDS content words or more)."""
        if self.embed is None or not self.choices:
            return {}
        spans = []
        for reading in readings:
            for inside in [inside for _, inside in reading.left] + [inside for _, _, inside in reading.doubtful]:
                content = [i for i in inside if reading.words[i].keys]
                if len(content) >= MIN_WORDS:
                    spans.append((reading.words[inside[0]].start, reading.words[inside[-1]].end))
        spans = list(dict.fromkeys(spans))
        if not spans:
            return {}
        return dict(zip(spans, self.embed([text[a:b] for a, b in spans])))

    def _statement(
        self, text: str, reading: _Reading, *, vectors: dict[tuple[int, int], np.ndarray], state: _State
    ) -> None:
        statement, words, cues = reading.statement, reading.words, list(reading.cues)
        matched = list(reading.matched)
        for clause, inside in reading.left:
            vector = vectors.get((words[inside[0]].start, words[inside[-1]].end))
            if vector is not None:
                matched.extend((m, clause) for m in self._by_meaning(vector, words, inside))
        matched = self._confirmed(reading, vectors, matched)
        named_here, used = set(), set(reading.in_values)
        for match, clause in matched:
            said_no = any(denied(clause, words[i].start) for i in match.positions)  # "my throat isn't sore"
            yes = statement.answer if statement.answer is not None else not said_no
            self._name(match.code, yes, span=_span(text, words, positions=match.positions, how=match.how), state=state)
            named_here.add(match.code)
            used |= match.positions
            if self.roles.get(match.code) and match.code in self.place_of.values():
                cues.append((max(match.positions), self.roles[match.code]))  # "Where is the affected region?"
        cues.sort()
        for code, found in reading.valued:
            self._values_of(code, found, text=text, state=state)
        places = self._places(text, statement, words=words, cues=cues, state=state, used=used)
        self._grades(text, statement, words=words, cues=cues, named_here=named_here, used=used | places, state=state)

    def _phrases(
        self,
        words: list[Token],
        inside: list[int],
        *,
        topic: tuple[str, ...] = (),
        doubtful: list[tuple[str, frozenset[int]]] | None = None,
    ) -> list[_Match]:
        """The evidences the clause's words (indexes ``inside``) name by a key phrase, the ones naming more winning;
        the ``topic``'s words fill a phrase's word as if said (one word at least must be said). Evidences whose
        phrase the words nearly hold (NEAR_MISS) are added to ``doubtful``."""
        first_at: dict[tuple[int, int], int] = {}
        for i in inside:
            for key in words[i].keys:
                for hit in self.index.get(key, ()):
                    first_at.setdefault(hit, i)
        by_phrase: dict[int, dict[int, int]] = {}
        for (p, s), i in first_at.items():
            by_phrase.setdefault(p, {})[s] = i
        topic_keys = frozenset().union(*(self.role_keys.get(name, frozenset()) for name in topic))
        said = {k for i in inside for k in words[i].keys}  # "severe COPD": E_31 over E_123
        best: dict[str, _Match] = {}
        for p, slots in by_phrase.items():
            phrase = self.flat[p]
            n = len(phrase.slots)
            implied = {s for s, slot in enumerate(phrase.slots) if n > 1 and slot.keys & topic_keys} - set(slots)
            weight = sum(phrase.slots[s].weight for s in set(slots) | implied)
            share = weight / phrase.weight
            filled = len(slots) + len(implied)
            if n > 2 and NEAR_MISS <= share < self.coverage and len(slots) >= 2 and doubtful is not None:
                doubtful.append((phrase.evidence, frozenset(slots.values())))  # "coughing up yellow-green phlegm"
            if (n <= 2 and filled < n) or (n > 2 and (share < self.coverage or filled < 2 or len(slots) < 1)):
                continue
            positions = frozenset(slots.values())
            if max(positions) - min(positions) > 4 * n + 4:
                continue
            others = any(FAMILY_KEY in s.keys or OTHER_KEY in s.keys for s in phrase.slots)
            if not others and phrase.evidence not in self.others and about_others(words, min(positions)):
                continue
            whole = self._whole(phrase.evidence, said)
            size = len(self.phrases[phrase.evidence][0].slots)
            match = _Match(phrase.evidence, share, weight, positions, f"phrase ({phrase.source})", whole, size)
            held = best.get(phrase.evidence)
            if held is None or (weight, share) > (held.weight, held.coverage):  # the phrase holding most words
                best[phrase.evidence] = match
        found = list(best.values())
        return [m for m in found if not any(_beats(o, m) for o in found if o is not m)]

    def _whole(self, code: str, keys: set[str]) -> float:
        """The share of an evidence's whole question the words hold (tells apart two evidences the same words name)."""
        question = self.phrases[code][0]
        return sum(s.weight for s in question.slots if s.keys & keys) / question.weight

    def _confirmed(
        self,
        reading: _Reading,
        vectors: dict[tuple[int, int], np.ndarray],
        matched: list[tuple[_Match, Clause]],
    ) -> list[tuple[_Match, Clause]]:
        """The matches, with the evidences a clause nearly names by its words and names by meaning (its question is
        the nearest of all and comes ``near``); a match such a one holds more words than is dropped ("coughing up
        phlegm" is E_77, so not E_201 alone)."""
        words = reading.words
        added = False
        for code, clause, inside in reading.doubtful:
            vector = vectors.get((words[inside[0]].start, words[inside[-1]].end))
            rows = self.rows.get(code)
            if vector is None or rows is None:
                continue
            scores = self.vectors @ vector
            score = float(scores[rows].max())
            if score >= self.near and self.choices[int(np.argmax(scores))] == code:  # the nearest question of all
                positions = frozenset(i for i in inside if any(self.index_keys[code] & words[i].keys for _ in [0]))
                if positions:
                    size = len(self.phrases[code][0].slots)
                    matched.append(
                        (_Match(code, 1.0, 0.0, positions, f"phrase and meaning ({score:.2f})", 1.0, size), clause)
                    )
                    added = True
        if not added:
            return matched
        return [(m, c) for m, c in matched if not any(_beats(o, m) for o, k in matched if k is c and o is not m)]

    def _by_meaning(self, vector: np.ndarray, words: list[Token], inside: list[int]) -> list[_Match]:
        """The yes/no evidence whose question the clause (its ``vector``) comes nearest, if it comes ``near``."""
        scores = self.vectors @ vector
        best = int(np.argmax(scores))
        code = self.choices[best]
        if float(scores[best]) < self.near:
            return []
        if code not in self.others and about_others(words, inside[-1] + 1):
            return []
        return [_Match(code, float(scores[best]), 0.0, frozenset(inside), f"meaning ({scores[best]:.2f})")]

    def _values_in(self, words: list[Token], inside: list[int]) -> bool:
        """Whether the clause names a place, a kind of pain or a grade (read as values, not compared by meaning)."""
        part = [words[i] for i in inside]
        if self.places and self.places.find(part):
            return True
        return any(named.find(part) for named in self.named.values()) or bool(grades(" ".join(t.text for t in part)))

    # -- values ----------------------------------------------------------------------------------------------------
    def _named_values(self, words: list[Token], cues: list[tuple[int, str]], held: set[int]) -> list[tuple[str, Found]]:
        """Kinds of pain, colours, regions: read where their role is spoken of (a cue word that is not the value), on
        words no phrase ``held``."""
        found: list[tuple[str, Found]] = []
        for code, named in self.named.items():
            cue_words = {i for i, r in cues if r == self.roles[code]}
            if cue_words:
                found.extend((code, f) for f in named.find(words, skip=cue_words | held))
        return found

    def _places(
        self,
        text: str,
        statement: Statement,
        *,
        words: list[Token],
        cues: list[tuple[int, str]],
        state: _State,
        used: set[int],
    ) -> set[int]:
        """The places the statement names, each of the place question whose role is spoken of nearest before it; the
        words of a phrase read are no place ("nasal congestion", "a sore throat")."""
        if not self.places:
            return set()
        places = self.places.find(words, skip=used)
        for found in places:
            code = self.place_of.get(_role_at(cues, found.first))
            if not code:
                continue
            clause = _clause_at(statement, found.start)
            nowhere = found.values == (self.places.nowhere,)
            if statement.answer is None and clause and denied(clause, found.start) and not nowhere:
                continue
            self._values_of(code, found, text=text, state=state)
        spreading = self.place_of.get(RADIATION)
        for i, said in cues:  # "it doesn't spread", "the pain doesn't radiate": it radiates nowhere
            clause = _clause_at(statement, words[i].start) if i >= 0 else None
            if said == RADIATION and spreading and clause and denied(clause, words[i].start):
                if not any(clause.start <= f.start < clause.end for f in places):
                    self._name(
                        join_code(spreading, self.places.nowhere),
                        True,
                        span=_span(text, words, positions=frozenset({i}), how="value"),
                        state=state,
                    )
        return {i for f in places for i in range(f.first, f.last + 1)}

    def _cues(self, words: list[Token]) -> list[tuple[int, str]]:
        """(token index, role) of the words that say what a value is about: "pain", "spreads", "rash", "swelling"."""
        cues = []
        for i, token in enumerate(words):
            for keys, name in self.cue_roles.items():
                if keys & token.keys:
                    cues.append((i, name))
                    break
        return cues

    def _grades(
        self,
        text: str,
        statement: Statement,
        *,
        words: list[Token],
        cues: list[tuple[int, str]],
        named_here: set[str],
        used: set[int],
        state: _State,
    ) -> None:
        """Numbers on a scale, and grade words ("mild", "suddenly") not in a phrase read ("diffuse muscle pain")."""
        asked = [c for c in named_here if c in self.scales]
        for clause in statement.clauses:
            part = [i for i, t in enumerate(words) if clause.start <= t.start < clause.end]
            if not part:
                continue
            numbers = grades(text[clause.start : clause.end], clause.start)
            if numbers:  # a number with no aspect named grades the intensity ("it's a 6 out of 10")
                code = asked[0] if asked else self._scale_for(words, part, cues=cues, default="intense")
                if code:
                    grade = numbers[0]
                    span = Span(grade.start, grade.end, text[grade.start : grade.end], "grade")
                    self._name(join_code(code, str(grade.value)), True, span=span, state=state)
                continue
            if statement.answer is not None or asked:
                continue  # a grade word is read in a statement, not in an answer ("No.")
            code = self._scale_for(words, part, cues=cues, default="")
            if not code:
                continue
            aspect = self.scales[code]
            free = [words[i] for i in part if i not in used]
            worded = worded_grade(free, {**GRADE_WORDS["intense"], **GRADE_WORDS.get(aspect, {})})
            cue = next((t for t in free if t.keys & self.aspect_cues[aspect]), None)
            if not worded and cue and aspect in ("swollen", "itching") and denied(clause, cue.start):
                worded = (0, free.index(cue))  # "it doesn't itch": 0
            if worded:
                value, at = worded
                token = free[at]
                if denied(clause, token.start) and aspect in ("swollen", "itching"):
                    value = 0
                self._name(
                    join_code(code, str(value)),
                    True,
                    span=Span(token.start, token.end, token.text, "grade"),
                    state=state,
                )

    def _scale_for(self, words: list[Token], part: list[int], *, cues: list[tuple[int, str]], default: str) -> str:
        """The scale a clause grades: of the role it speaks of, the one whose aspect words it holds (or default)."""
        held = set().union(*(words[i].keys for i in part))
        aspects = [a for a in _ASPECT_ORDER if self.aspect_cues[a] & held] or ([default] if default else [])
        roles = [r for i, r in cues if i in set(part)] or [r for _, r in cues]
        for name in dict.fromkeys(roles):
            for aspect in aspects:
                code = next((c for c, a in self.scales.items() if a == aspect and self.roles[c] == name), "")
                if code:
                    return code
        return ""

    def _values_of(self, code: str, found: Found, *, text: str, state: _State) -> None:
        for value in found.values:
            self._name(
                join_code(code, value),
                True,
                span=Span(found.start, found.end, text[found.start : found.end], "value"),
                state=state,
            )

    # -- naming ----------------------------------------------------------------------------------------------------
    def _name(self, code: str, yes: bool, *, span: Span, state: _State) -> None:
        evidence = self.dictionary.evidences[code.partition("_@_")[0]]
        if "_@_" in code or evidence.kind == BINARY:
            target = code
        elif yes:
            target = join_code(code, _named_value(evidence, "Y"))
        else:  # a denied value question: its "N", its "nowhere", its 0
            no = _named_value(evidence, "N") or _named_value(evidence, NOWHERE) or ("0" if evidence.scale else "")
            target, yes = join_code(code, no), bool(no)
        if not yes:
            if target not in state.absent and target not in state.present:
                state.absent.append(target)
                state.spans.setdefault(target, span)
            return
        if target not in state.present:
            state.present.append(target)
            state.spans.setdefault(target, span)

    def _follow_ups(self, state: _State) -> None:
        """A follow-up read with a value names the yes/no question it follows, unless its place question says
        "nowhere" (the dataset asks the follow-ups of a skin problem, with "nowhere", of some who have none)."""
        evidences = self.dictionary.evidences
        nowhere = set()
        for code in state.present:
            base, _, value = code.partition("_@_")
            if value and (named := evidences[base].value(value)) and named.name == NOWHERE:
                if self.roles.get(base) != RADIATION:  # a pain that spreads nowhere is still a pain
                    nowhere.add(evidences[base].parent)
        for code in list(state.present):
            evidence = evidences[code.partition("_@_")[0]]
            parent = evidences.get(evidence.parent)
            if parent is None or parent.code == evidence.code or parent.kind != BINARY or parent.code in nowhere:
                continue
            if parent.code not in state.present:
                state.present.append(parent.code)
                span = state.spans[code]
                state.spans.setdefault(parent.code, Span(span.start, span.end, span.text, "follows"))


@dataclass
class _Reading:
    """What a statement's words say before any is compared by meaning."""

    statement: Statement
    words: list[Token]
    cues: list[tuple[int, str]]
    matched: list[tuple[_Match, Clause]]
    valued: list[tuple[str, Found]]
    in_values: set[int]
    left: list[tuple[Clause, list[int]]]  # clauses no phrase names, with their words' indexes
    doubtful: list[tuple[str, Clause, list[int]]]  # evidences a clause's words nearly name, to check by meaning


@dataclass
class _State:
    present: list[str] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)
    spans: dict[str, Span] = field(default_factory=dict)

    def present_bases(self) -> set[str]:
        return {c.partition("_@_")[0] for c in self.present}


def _beats(other: _Match, match: _Match) -> bool:
    """Whether ``other`` was read from the same words and more of them, or as many more surely."""
    if not match.positions <= other.positions:
        return False
    return other.positions != match.positions or (other.coverage, other.whole, -other.size) > (
        match.coverage,
        match.whole,
        -match.size,
    )


def _span(text: str, words: list[Token], *, positions: frozenset[int], how: str) -> Span:
    start, end = words[min(positions)].start, words[max(positions)].end
    return Span(start, end, text[start:end], how)


def _role_at(cues: list[tuple[int, str]], at: int) -> str:
    """The role of the nearest cue before token ``at`` (else the nearest after it)."""
    before = [r for i, r in cues if i < at]
    if before:
        return before[-1]
    after = [r for i, r in cues if i > at]
    return after[0] if after else ""


def _clause_at(statement: Statement, at: int) -> Clause | None:
    return next((c for c in statement.clauses if c.start <= at < c.end), None)


def _named_value(evidence: Evidence, name: str) -> str:
    value = evidence.named(name)
    return value.code if value else ""


def _places(evidence: Evidence) -> bool:
    return any(v.name == NOWHERE for v in evidence.values)


def _aspect(evidence: Evidence) -> str:
    held = {k for w in evidence.question.split() for k in _key_set(w)}
    cues = {name: {k for w in words.split() for k in _key_set(w)} for name, words in ASPECT_CUES.items()}
    return next((a for a in _ASPECT_ORDER if cues[a] & held), "intense")


def _key_set(word: str) -> frozenset[str]:
    return keys_of(re.sub(r"\W", "", word))


def _links(dictionary: Dictionary, lexicon: Lexicon, embed: Embed | None) -> list[HpoLink]:
    """The reviewed HPO table's links when it holds this dictionary's questions, else links made now."""
    if TABLE.exists():
        asked = {e.code: e.question for e in dictionary.evidences.values()}
        links = [k for k in read_table() if "_@_" not in k.code and asked.get(k.code) == k.question]
        if len(links) == len(asked):
            return links
    return hpo_links(dictionary, lexicon, embed or minilm())


def _variants(evidence: Evidence, listed: list[Phrase]) -> list[str]:
    """The question, in the first person too, and its phrases' texts: what a clause is compared with."""
    question = core(evidence.question).rstrip("?:. ")
    first = question
    for pattern, replacement in _FRAMES:
        first = pattern.sub(replacement, first)
    for pattern, replacement in _PRONOUNS:
        first = pattern.sub(replacement, first)
    first = _YOU.sub("I", first)
    return list(dict.fromkeys([question, first, *(p.text.rstrip("?:. ") for p in listed)]))
