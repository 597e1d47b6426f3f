"""NegEx-style negation (Chapman et al. 2001): which character ranges of a text a negation governs.

A trigger before a finding ("no", "denies", "without", "negative for") negates what follows it up to a
terminator ("but", "however", "with", a verb that starts a new statement, the end of the clause) or
MAX_SCOPE words. A verb or phrase of absence ("denies", "negative for") negates a list as a whole ("denies
fever, chills and night sweats"); a bare "no", "not" or "without" only the first item of a list joined by
"and" ("no lens dislocation, pectus excavatum and a dilated aortic root": the last two are there), and
the whole list when it is joined by "or"/"nor" ("no fever, chills or night sweats"). A trigger after
a finding ("... was absent", "... ruled out") negates the finding just before it. Pseudo-triggers ("not
only", "no change in", "cannot be excluded") negate nothing, and so does a trigger that is a word of a finding's own
name ("absent ankle reflexes, hypotonia", "defective or absent horizontal eye movements, ataxia", "absence of the
corpus callosum and seizures": the findings around it are there). A heading of absence before a colon negates the
list after it to the end of its line or sentence ("Explicitly absent (excluded) features: Hepatomegaly; Gout",
"Pertinent negatives: fever, rash", "Ruled out: ..."); a heading that only names findings ("Observed features:")
negates nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

MAX_SCOPE = 10  # words a trigger reaches
_PSEUDO = (
    r"not only|not necessarily|no (?:further|change|increase|decrease|significant change)|"
    r"not ruled out|cannot be (?:excluded|ruled out)|can'?t be (?:excluded|ruled out)|not excluded|"
    r"rule out|to exclude|whether or not|no doubt|not certain (?:whether|if)"
)
_PRE = (
    r"no evidence of|no signs? of|no history of|no symptoms? of|absence of|absent|free of|negative for|"
    r"denies|denied|deny|denying|never had|never|no|not|without|nor|neither|lacks?|lack of|lacking|"
    r"ruled out|rules out"
)
_ITEM = re.compile(r",|\band\b|\bas well as\b", re.IGNORECASE)
_EITHER = re.compile(r"\b(?:or|nor)\b", re.IGNORECASE)
_BARE = {"no", "not", "without", "absent", "never"}
_TRIGGER = re.compile(rf"\b(?:(?P<pseudo>{_PSEUDO})|(?P<pre>{_PRE}))\b", re.IGNORECASE)
_END = re.compile(
    r"[.;:?!()\n]|\b(?:but|however|although|though|yet|except|apart from|aside from|which|who|whose|"
    r"presents?|presented|has|have|had|shows?|showed|reports?|reported|complains?|complained|with|"
    r"is|are|was|were)\b",
    re.IGNORECASE,
)
_POST = re.compile(
    r"^[\s,]*(?:(?:was|were|is|are|has been|have been|being)\s+)?"
    r"(?P<trigger>absent|not (?:present|seen|found|detected|observed|noted)|ruled out|excluded|negative)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"\w+")
# a line's heading that says what follows the colon is absent: its list is negated to the end of the line
_ABSENT_HEADING = re.compile(
    r"^[^\S\n]*(?:[-*\u2022][^\S\n]*)?[^:\n]{0,60}?\b(?:absent|excluded|ruled out|not present|not observed|not seen|"
    r"negatives?|denie[sd]|denies having|without|none of|no signs? of|did not have|does not have|do not have)\b"
    r"[^:\n]{0,40}:",
    re.IGNORECASE | re.MULTILINE,
)


Span = tuple[int, int]


def negated_ranges(text: str, named: Sequence[Span] = ()) -> list[Span]:
    """(start, end) character ranges that a preceding trigger negates; a trigger inside one of the ``named``
    findings' spans is a word of its name, no trigger."""
    ranges = [(m.end(), _line_end(text, m.end())) for m in _ABSENT_HEADING.finditer(text)]
    for match in _TRIGGER.finditer(text):
        if match.group("pseudo") or _inside(match.start(), named):
            continue
        start = match.end()
        stop = _END.search(text, start)
        end = stop.start() if stop else len(text)
        words = list(_WORD.finditer(text, start, end))
        if len(words) > MAX_SCOPE:
            end = words[MAX_SCOPE - 1].end()
        item = _ITEM.search(text, start, end)
        if match.group("pre").lower() in _BARE and item and not _EITHER.search(text, start, end):
            end = item.start()
        ranges.append((start, end))
    return ranges


def is_negated(
    text: str, start: int, *, end: int, ranges: list[Span] | None = None, named: Sequence[Span] = ()
) -> bool:
    """Whether the finding at text[start:end] is negated: inside a trigger's scope, or followed by one that is not
    the first word of another of the ``named`` findings ("hypotonia, absent ankle reflexes")."""
    scopes = negated_ranges(text, named) if ranges is None else ranges
    post = _POST.match(text[end:])
    return any(a <= start < b for a, b in scopes) or bool(post and not _inside(end + post.start("trigger"), named))


def _line_end(text: str, start: int) -> int:
    """Where a heading's list ends: the end of its line or of its sentence."""
    end = re.compile(r"\n|\.(?:\s|$)").search(text, start)
    return len(text) if end is None else end.start()


def _inside(at: int, spans: Sequence[Span]) -> bool:
    return any(a <= at < b for a, b in spans)
