"""An abstract as numbered sentences: what a claim check quotes and cites by number (0 = the first sentence).

A source that gives its sentences (SciFact's corpus) keeps them as given; a PubMed abstract ("LABEL: text" lines)
is split here, each section on its own, the label staying at the head of its section's first sentence as
SciFact's structured abstracts have it ("RESULTS We propose ..."). The split is deterministic, so a PubMed
record's sentence numbers are the same at every read without storing them.
"""

from __future__ import annotations

import re

# words after which a full stop does not end a sentence (et al., e.g., Fig., vs., a single initial)
_ABBREVIATIONS = frozenset(
    "al e.g i.e eg ie fig figs vs approx ca cf dr prof mr mrs ms st no nos vol etc resp ref refs incl viz "
    "jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k".split()
)
# a full stop, ! or ? (optionally closing a quote or bracket), spaces, then what may start a sentence
_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])")
_LABEL = re.compile(r"^([A-Z][A-Z /&-]{2,40}):\s+")


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (one paragraph), whitespace folded; never an empty one."""
    text = " ".join(text.split())
    if not text:
        return []
    sentences, start = [], 0
    for match in _BOUNDARY.finditer(text):
        head = text[start : match.start()].rstrip()
        last = head.rsplit(" ", 1)[-1].rstrip(".").lower()
        if last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha()):
            continue  # "et al. Smith", "J. Smith": the stop belongs to an abbreviation or an initial
        sentences.append(text[start : match.end()].strip())
        start = match.end()
    sentences.append(text[start:].strip())
    return [s for s in sentences if s]


def abstract_sentences(abstract: str) -> list[str]:
    """A PubMed abstract ("LABEL: text" lines, one a section) as sentences, each section split on its own; a
    section's label is kept at the head of its first sentence without the colon ("RESULTS We found ...")."""
    sentences: list[str] = []
    for line in abstract.split("\n"):
        label = _LABEL.match(line.strip())
        body = line.strip()[label.end() :] if label else line
        parts = split_sentences(body)
        if label and parts:
            parts[0] = f"{label.group(1)} {parts[0]}"
        sentences.extend(parts)
    return sentences
