"""The values a case names: body places (with their side), kinds of pain, a rash's colour, regions, grades on a scale.

A place is found by its words or a patient's (ddxplus_words.PLACES) as a run of keys, "my", "the", "of" skipped
("back of my head" = back of head); its side by "right"/"left"/"both" just before it, an "(R)"/"(L)" or "on the
right" just after it, a plural ("my temples") or "right and left" for both. A place the dataset gives a side names
both sides when the case gives none. Other named values (a kind of pain, a colour, a region) are found by their
names and a patient's words for them (CHARACTERS, COLOURS). A grade is a number on a 0-10 scale ("5/10", "5 out of
10", "5 (scale 0-10)", "rated 7", "a five") or a word for one (GRADE_WORDS: "mild", "came on suddenly").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from amg.tools.phenotypes.word_keys import key as stem
from amg.tools.records.ddxplus import NOWHERE, Evidence
from amg.tools.records.ddxplus_words import BOTH, CHARACTERS, COLOURS, NUMBERS, PLACES, SIDES, Token

_SIDE_NAME = re.compile(r"\((R|L)\)$")
_WORD = re.compile(r"[^\W_]+")
_SKIPPED = frozenset("my your his her their our the a an of on in at".split())
_NUMBER = r"(?:10|[0-9]|zero|one|two|three|four|five|six|seven|eight|nine|ten)"
_GRADE = re.compile(
    rf"\b(?P<n>{_NUMBER})\s*(?:/\s*10|out of (?:10|ten)|over (?:10|ten)|\(scale 0-10\)"
    rf"|on (?:a|the) (?:scale|0-10)\b[^.;]*)"
    rf"|\b(?:rate[sd]?|rating|score[sd]?|grade[sd]?|level|intensity|about|around|roughly|a)\s+(?:it\s+)?(?:as\s+|at\s+|a\s+)?"
    rf"(?P<m>{_NUMBER})\b(?!\s*(?:years?|days?|weeks?|months?|hours?|times|people|or more|kg|cm|%))",
    re.IGNORECASE,
)
NOWHERE_WORDS = frozenset("nowhere anywhere elsewhere".split())


@dataclass(frozen=True)
class Found:
    values: tuple[str, ...]  # value codes
    first: int  # token index
    last: int
    start: int  # characters
    end: int


class Places:
    """The body places of the place questions (E_55's values, shared by the others), by their words."""

    def __init__(self, evidence: Evidence):
        self.sides: dict[str, dict[str, str]] = {}  # base name -> {"R"/"L"/"": value code}
        self.nowhere = ""
        for value in evidence.values:
            if value.name == NOWHERE:
                self.nowhere = value.code
                continue
            match = _SIDE_NAME.search(value.name)
            base = _SIDE_NAME.sub("", value.name).strip()
            self.sides.setdefault(base, {})[match.group(1) if match else ""] = value.code
        self.runs: list[tuple[tuple[str, ...], str]] = []  # (keys in order, base name), the longest first
        for base in self.sides:
            for words in dict.fromkeys((base, *PLACES.get(base, ()))):
                keys = tuple(_place_key(w) for w in _WORD.findall(words) if w.lower() not in _SKIPPED)
                if keys:
                    self.runs.append((keys, base))
        self.runs.sort(key=lambda run: -len(run[0]))  # stable: a place's own name before a patient's word

    def find(self, tokens: list[Token], skip: frozenset[int] | set[int] = frozenset()) -> list[Found]:
        """The places the tokens name, in order (the longest run wins where two overlap); a word is compared as written
        (its own key: "nasal" is no nose), ``skip`` words (read as part of a finding's phrase) not at all."""
        taken: set[int] = set(skip)
        found = []
        content = [i for i, t in enumerate(tokens) if t.text.lower() not in _SKIPPED]
        own = [_place_key(t.text) for t in tokens]
        for keys, base in self.runs:
            for at in range(len(content) - len(keys) + 1):
                positions = content[at : at + len(keys)]
                if taken & set(positions) or positions[-1] - positions[0] > 2 * len(keys):
                    continue
                if all(k == own[p] for k, p in zip(keys, positions)):
                    taken.update(positions)
                    sides = self._side(tokens, positions[0], positions[-1])
                    codes = self._codes(base, sides)
                    if codes:
                        first, last = positions[0], positions[-1]
                        found.append(Found(codes, first, last, tokens[first].start, tokens[last].end))
        for i, token in enumerate(tokens):
            if token.text.lower() in NOWHERE_WORDS and self.nowhere and i not in taken:
                found.append(Found((self.nowhere,), i, i, token.start, token.end))
        return sorted(found, key=lambda f: f.first)

    def _codes(self, base: str, sides: set[str]) -> tuple[str, ...]:
        held = self.sides[base]
        if "" in held:
            return (held[""],)
        wanted = sides or {"R", "L"}
        return tuple(held[s] for s in ("R", "L") if s in wanted and s in held)

    @staticmethod
    def _side(tokens: list[Token], first: int, last: int) -> set[str]:
        sides = set()
        for token in tokens[max(0, first - 4) : first]:
            word = token.text.lower()
            if word in ("right", "left"):
                sides.add(SIDES[word])
            elif word in BOTH:
                sides.update({"R", "L"})
            elif word not in _SKIPPED and word not in ("and", "side", "sides", "upper", "lower", "hand"):
                sides.clear()  # a side before another word is that word's
        after = [t.text for t in tokens[last + 1 : last + 5]]
        if after and after[0] in ("R", "L"):
            sides.add(after[0])
        elif [w.lower() for w in after[:1]] in (["on"], ["in"]) and len(after) > 2:
            word = after[2].lower() if after[1].lower() == "the" else after[1].lower()
            sides.update({SIDES[word]} if word in ("right", "left") else {"R", "L"} if word in BOTH else set())
        if not sides and tokens[last].text.lower().endswith("s") and not tokens[last].text.lower().endswith("ss"):
            sides.update({"R", "L"})  # "my temples", "both cheeks"
        return sides


class Named:
    """The named values of one evidence (kinds of pain, colours, regions) by their names and a patient's words."""

    def __init__(self, evidence: Evidence):
        self.runs: list[tuple[tuple[str, ...], str]] = []
        for value in evidence.values:
            if value.name in ("N", "Y", "NA"):  # said by a yes or a no, or not at all
                continue
            for words in dict.fromkeys((value.name, *CHARACTERS.get(value.name, ()), *COLOURS.get(value.name, ()))):
                keys = tuple(stem(w) for w in _WORD.findall(words) if w.lower() not in _SKIPPED)
                if keys:
                    self.runs.append((keys, value.code))
        self.runs.sort(key=lambda run: -len(run[0]))

    def find(self, tokens: list[Token], skip: frozenset[int] | set[int] = frozenset()) -> list[Found]:
        found, taken = [], set(skip)
        for keys, code in self.runs:
            for at in range(len(tokens) - len(keys) + 1):
                positions = list(range(at, at + len(keys)))
                if taken & set(positions):
                    continue
                if all(k in tokens[p].keys for k, p in zip(keys, positions)):
                    taken.update(positions)
                    found.append(Found((code,), at, positions[-1], tokens[at].start, tokens[positions[-1]].end))
        return sorted(found, key=lambda f: f.first)


def _place_key(word: str) -> str:
    """A place word's key: its stem, or the word itself for a stop word ("under the jaw")."""
    return stem(word) or word.lower()


@dataclass(frozen=True)
class Grade:
    value: int
    start: int
    end: int


def grades(text: str, offset: int = 0) -> list[Grade]:
    """The numbers on a 0-10 scale ``text`` gives, with where they are (``offset`` added)."""
    found = []
    for match in _GRADE.finditer(text):
        group = "n" if match.group("n") else "m"
        word = match.group(group).lower()
        value = int(word) if word.isdigit() else NUMBERS[word]
        found.append(Grade(value, offset + match.start(group), offset + match.end(group)))
    return found


def worded_grade(tokens: list[Token], table: dict[str, int]) -> tuple[int, int] | None:
    """(grade, token index) of the first word of ``table`` among the tokens ("mild": 2), or None."""
    for i, token in enumerate(tokens):
        word = token.text.lower()
        if word in table:
            return table[word], i
    return None
