"""A case's text as statements and clauses, with what each denies, and the patient's age and sex.

A statement is a line or a sentence; a question with its answer is one ("Do you have a cough? Yes.", "Where is the
pain? forehead; cheek(R)."), and its answer says yes or no for it. A statement splits into clauses where a new
one starts ("but", "although", ";", "and I ...", ", my ..."), so that a denial does not reach past its clause.
Within a clause a denial ("no", "not", "never", "without", "don't", "denies", "negative for") covers the words after
it; a bare one ("no", "not", "n't") stops at "and" unless the list is one of "or" ("no fever or chills": both), a
verb of denial ("denies") covers its whole list. "Can't"/"unable to" says a difficulty, not a denial ("I can't
breathe"). An answer "No." denies the question it answers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)|\n+")
_QUESTION_END = re.compile(r"\?\s*$")
_CLAUSE = re.compile(
    r";|\s(?=(?:but|however|although|though|whereas|except|apart from|aside from)\b)"
    r"|,\s*(?=(?:and\s+|so\s+)?(?:i|i'm|i've|i'd|my|it|it's|this|she|he|her|his|they|there)\b)"
    r"|\s(?=(?:and|so)\s+(?:i|i'm|i've|i'd|my|she|he|her|his|they|there)\b)",
    re.IGNORECASE,
)
_DENIAL = re.compile(
    r"\b(?:(?P<verb>denies|denied|deny|denying|negative for|free of|absence of|no history of|no sign of|no signs of)"
    r"|(?P<bare>no longer|not anymore|no|not|never|without|none|nor|neither|\w+n't|n't))\b",
    re.IGNORECASE,
)
_PSEUDO = re.compile(
    r"\b(?:not only|no doubt|not sure|no idea|not certain|no change|no different|nothing else|not that i know)\b",
    re.IGNORECASE,
)
_UNABLE = re.compile(r"\b(?:can't|cannot|can not|couldn't|could not)\b", re.IGNORECASE)
_AND = re.compile(r"\band\b|\bas well as\b|\bplus\b", re.IGNORECASE)
_OR = re.compile(r"\b(?:or|nor)\b", re.IGNORECASE)
_ANSWER = re.compile(r"^\s*(?P<word>[A-Za-z]+)\b")
YES = frozenset("yes yeah yep yup y true correct indeed sure definitely absolutely".split())
NO = frozenset("no nope n never none false".split())

_AGE = (
    re.compile(r"\bage[d:]?\s*(\d{1,3})\b", re.IGNORECASE),
    re.compile(r"\b(\d{1,3})[\s-]*(?:years?|yrs?|y)[\s-]*old\b", re.IGNORECASE),
    re.compile(r"\b(\d{1,3})\s*(?:yo|y/o|y\.o\.)\b", re.IGNORECASE),
    re.compile(r"\b(?:i'm|i am)\s+(\d{1,3})\b(?!\s*(?:/|out|over|on|times|kg|lb|pounds|cm|weeks|days|months))", re.I),
)
_FEMALE = re.compile(r"\b(?:female|woman|girl|lady|mrs|ms|pregnant)\b", re.IGNORECASE)
_MALE = re.compile(r"\b(?:male|man|boy|gentleman|mr)\b", re.IGNORECASE)
_SHE = re.compile(r"\b(?:she|her|hers|herself)\b", re.IGNORECASE)
_HE = re.compile(r"\b(?:he|him|his|himself)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Clause:
    start: int
    end: int
    denied: tuple[tuple[int, int], ...]  # character ranges (of the whole text) a denial covers


@dataclass(frozen=True)
class Statement:
    start: int
    end: int
    clauses: tuple[Clause, ...]
    answer: bool | None  # a question's answer: yes (True), no (False); None when it is no question with an answer
    question_end: int  # where a question's answer starts (the statement's end when there is none)


def statements(text: str) -> list[Statement]:
    """The statements of ``text`` in order, a question joined with its answer."""
    pieces = _pieces(text)
    found, at = [], 0
    while at < len(pieces):
        start, end = pieces[at]
        answer, question_end = None, end
        if _QUESTION_END.search(text[start:end]) and at + 1 < len(pieces):
            reply_start, reply_end = pieces[at + 1]
            reply = text[reply_start:reply_end]
            if (len(reply.split()) <= 12 or ";" in reply) and "?" not in reply:
                answer = _yes_no(text[reply_start:reply_end])
                question_end, end = reply_start, reply_end
                at += 1
        at += 1
        clauses = (_clause(text, start, end),) if question_end < end else _clauses(text, start, end)
        found.append(Statement(start, end, clauses, answer, question_end))
    return found


def denied(clause: Clause, at: int) -> bool:
    return any(a <= at < b for a, b in clause.denied)


def age_and_sex(text: str) -> tuple[int | None, str | None]:
    age = next((int(m.group(1)) for pattern in _AGE for m in [pattern.search(text)] if m), None)
    if _FEMALE.search(text) and not _MALE.search(text):
        sex = "F"
    elif _MALE.search(text) and not _FEMALE.search(text):
        sex = "M"
    else:
        she, he = len(_SHE.findall(text)), len(_HE.findall(text))
        return (age if age is not None and age <= 120 else None), "F" if she > he else "M" if he > she else None
    return (age if age is not None and age <= 120 else None), sex


def _pieces(text: str) -> list[tuple[int, int]]:
    """(start, end) of the sentences and lines, blank ones left out."""
    found, start = [], 0
    for match in _SENTENCE.finditer(text):
        found.append((start, match.start()))
        start = match.end()
    found.append((start, len(text)))
    return [(a, b) for a, b in found if text[a:b].strip()]


def _yes_no(reply: str) -> bool | None:
    match = _ANSWER.match(reply)
    word = match.group("word").lower() if match else ""
    return True if word in YES else False if word in NO else None


def _clauses(text: str, start: int, end: int) -> tuple[Clause, ...]:
    cuts = [start] + [start + m.end() for m in _CLAUSE.finditer(text[start:end])] + [end]
    return tuple(_clause(text, a, b) for a, b in zip(cuts, cuts[1:]) if text[a:b].strip())


def _clause(text: str, start: int, end: int) -> Clause:
    part = text[start:end]
    pseudo = [(m.start(), m.end()) for m in _PSEUDO.finditer(part)]
    ranges = []
    for match in _DENIAL.finditer(part):
        if any(a <= match.start() < b for a, b in pseudo) or _UNABLE.fullmatch(match.group()):
            continue
        scope_end = len(part)
        if match.group("bare"):
            item = _AND.search(part, match.end())
            if item and not _OR.search(part, match.end()):
                scope_end = item.start()
        ranges.append((start + match.end(), start + scope_end))
    return Clause(start, end, tuple(ranges))
