"""HPO phenotype mentions in free text, each present or negated, with a confidence.

Within a clause, every run of meaningful words (stop words skipped) whose word keys (words.py) form
the key set of an HPO label names that term, in any word order: "dislocated lenses of both eyes" holds
{disloc, len} = "Lens dislocation" (Ectopia lentis), "freckling in both axillae" = "Axillary freckling".
A single word must be a label as written, but for plurals and spelling ("spine" is no "Spinning", "vaginal"
no "Vaginitis"), and so must a run across a comma or "and"/"or" (list items; "Nystagmus, pendular"). A run
with one extra word inside it, not across a list, still names the label (confidence x 0.85), negated when
that word is one ("lenses are not dislocated"). Mentions of more label words win over those inside them
and over overlapping ones of the same or a broader term, not over other terms sharing words with them ("a
short 5th finger with clinodactyly": Short 5th finger, Clinodactyly of the 5th finger). List items share a
word ("cleft lip and palate", "short and broad thumbs": x 0.85). A term graded by a word that only
qualifies it is reported as the plain term ("bilateral cleft lip": Cleft lip; lexicon.py). An acronym
label ("PDA") matches only as written. A series of digits names a term by its ends ("syndactyly of the second
and third toes": 2-3 toe syndactyly) or one by each digit ("short metacarpals II-V": Short 2nd … 5th metacarpal).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from amg.tools.phenotypes.lexicon import SCOPE_WEIGHT, Lexicon, hpo_lexicon
from amg.tools.phenotypes.negation import is_negated, negated_ranges
from amg.tools.phenotypes.word_keys import (
    QUANTITY,
    SERIES,
    condition_adjective,
    key,
    key_in_place,
    keys,
    series,
    tokens,
    written,
)

GAP_PENALTY = 0.85
MULTIPLE = key("multiple")
_CLAUSE = re.compile(r"[.;:?!()\[\]]|\n(?=\s*(?:\n|[-*•]))")  # a wrapped line goes on; a blank line or a bullet ends
_LIST = re.compile(r"\b(?:and|or|nor)\b(?! more\b)", re.IGNORECASE)  # no extra word is skipped across them
_JOINT = re.compile(r"\s*(?:,\s*(?:(?:and|or)\s+)?|(?:and|or)\s+)", re.IGNORECASE)  # between the items of a list
_JOINED = re.compile(r"[ \t]+")  # only spaces between two words
Word = tuple[str, int, int]  # a meaningful word's key, start and end
NEGATORS = {key(w) for w in ("no", "not", "never", "without")}  # the extra word inside: "lenses are not dislocated"
# a condition's adjective before one of these names a treatment, no finding: "hypoglycemic agents", "hypertonic saline"
TREATMENTS = frozenset(
    keys("agent drug medication medicine solution saline fluid infusion therapy treatment regimen dose")
)
DIGITS = "#"  # the key of a series of digits starts with it: "#2,3,4,5" ("II-V")


class Hit(NamedTuple):
    start: int
    end: int
    weight: float
    term_id: str
    words: int  # label words matched
    negated: bool = False  # a negation is the extra word inside it
    skipped: int = -1  # where the extra word inside it starts
    digit: str = ""  # the one digit of a series it names ("Short 3rd metacarpal" in "metacarpals II-V short")


@dataclass
class Mention:
    id: str  # HPO id
    name: str
    key: str  # the graph's key of the term
    text: str  # the words of the text that name it
    start: int
    end: int
    confidence: float
    negated: bool = False


def recognise(text: str, lexicon: Lexicon | None = None) -> list[Mention]:
    """The phenotypes ``text`` names, in text order; one mention per term (a present one over a negated one)."""
    lexicon = lexicon or hpo_lexicon()
    found = []
    clauses = _clauses(text)
    chosen = _choose(_candidates(text, clauses, lexicon), text, lexicon)
    hits = chosen + _coordinated(chosen, text, clauses=clauses, lexicon=lexicon)
    named = [(h.start, h.end) for h in hits if not h.negated]  # a negator skipped inside a mention still negates
    scopes = negated_ranges(text, named)
    for hit in hits:
        term = lexicon.terms[lexicon.unmodified.get(hit.term_id, hit.term_id)]
        negated = hit.negated or is_negated(text, hit.start, end=hit.end, ranges=scopes, named=named)
        found.append(
            Mention(
                term.id,
                term.name,
                term.key,
                text[hit.start : hit.end],
                hit.start,
                hit.end,
                round(hit.weight, 3),
                negated,
            )
        )
    best: dict[str, Mention] = {}
    for mention in found:
        held = best.get(mention.id)
        if held is None or (held.negated and not mention.negated):
            best[mention.id] = mention
    return sorted(best.values(), key=lambda m: m.start)


def _clauses(text: str) -> list[list[Word]]:
    """Per clause, its meaningful words as (key, start, end); a quantity ("more than six") is one "multiple", a
    series of digits ("II-V", "second and third") one word keyed by its numbers."""
    clauses: list[list[Word]] = []
    current: list[Word] = []
    bounds = sorted(m.start() for m in _CLAUSE.finditer(text))
    groups = [(m.start(), m.end(), MULTIPLE) for m in QUANTITY.finditer(text)]
    groups += [
        (m.start(), m.end(), DIGITS + ",".join(numbers))
        for m in SERIES.finditer(text)
        if (numbers := series(m.group()))
    ]
    before = None  # where the word before ends
    for word, start, end in tokens(text):
        if current and any(current[-1][2] <= b < start for b in bounds):
            clauses.append(current)
            current = []
        after_a_word = before is not None and not any(before <= b < start for b in bounds)
        before = end
        group = next(((a, b, k) for a, b, k in groups if a <= start < b), None)
        if group and current and current[-1][1] >= group[0]:
            continue  # the rest of a quantity or series already read
        if word_key := (group[2] if group else key_in_place(word, after_a_word)):
            current.append((word_key, start, group[1] if group else end))
    return [c for c in [*clauses, current] if c]


def _candidates(text: str, clauses: list[list[Word]], lexicon: Lexicon) -> list[Hit]:
    """Every run of words that names a label, and every acronym."""
    found = [
        Hit(start, end, *lexicon.acronyms[word], 1) for word, start, end in tokens(text) if word in lexicon.acronyms
    ]
    for words in clauses:
        for i, (_, start, _) in enumerate(words):
            for j in range(i, min(len(words), i + lexicon.longest + 1)):
                run, end = [w for w, _, _ in words[i : j + 1]], words[j][2]
                listed = _listed(text, words[i : j + 1])
                hit = lexicon.verbatim.get(written(text[start:end]))
                if hit and i == j and _treatment(text, words, j):
                    continue
                # a label as written; one that repeats a word only when it is sure ("scar tissue replaces healthy
                # tissue in the liver"): a broad "cleft lip, cleft palate" (Orofacial cleft) says less than its items
                if hit and (len(set(run)) == len(run) or hit[0] >= SCOPE_WEIGHT["RELATED"]):
                    found.append(Hit(start, end, *hit, len(run)))
                    continue
                named = [
                    Hit(start, end, *hit, len(read), digit=digit)
                    for read, digit in _readings(run)
                    if not listed
                    and len(read) > 1
                    and len(set(read)) == len(read)
                    and (hit := lexicon.labels.get(frozenset(read)))
                ]
                if named:
                    found.extend(named)
                    continue
                for gap in range(1, len(run) - 1 if not listed else 1):
                    if _numeric(run[gap]):
                        continue  # a number is never the extra word: it says which one
                    rest = run[:gap] + run[gap + 1 :]  # one extra word inside: "dilated (proximal) aortic root"
                    named = [
                        Hit(
                            start,
                            end,
                            hit[0] * GAP_PENALTY,
                            hit[1],
                            len(read),
                            run[gap] in NEGATORS,
                            words[i + gap][1],
                            digit,
                        )
                        for read, digit in _readings(rest)
                        if len(set(read)) == len(read)
                        and run[gap] not in read
                        and (hit := lexicon.labels.get(frozenset(read)))
                    ]
                    if named:
                        found.extend(named)
                        break
    return found


def _treatment(text: str, words: list[Word], at: int) -> bool:
    """Whether a condition's adjective names a treatment ("hypoglycemic agents"), not the condition."""
    _, start, end = words[at]
    return condition_adjective(text[start:end]) and at + 1 < len(words) and words[at + 1][0] in TREATMENTS


def _listed(text: str, words: list[Word]) -> bool:
    """Whether a run of words crosses a comma, "and" or "or" (list items; not those inside a series of digits)."""
    return any(
        "," in text[end:start] or _LIST.search(text, end, start) for (_, _, end), (_, start, _) in zip(words, words[1:])
    )


def _readings(run: list[str]) -> list[tuple[list[str], str]]:
    """The run's keys as labels are indexed, with the digit each names: a series of digits as its first and last
    ("2-3 toe syndactyly", "Syndactyly of toes 4 and 5") or as each of its numbers ("Short 2nd metacarpal"); none
    where another number stands beside it."""
    at = next((n for n, k in enumerate(run) if k.startswith(DIGITS)), None)
    if at is None:
        return [(run, "")]
    if any(_numeric(k) for k in run[:at] + run[at + 1 :]):
        return []  # numbers of two places ("syndactyly of the second and third toes with overlapping fourth")
    numbers, head, tail = run[at][len(DIGITS) :].split(","), run[:at], run[at + 1 :]
    return [(head + [numbers[0], numbers[-1]] + tail, ""), *((head + [n] + tail, n) for n in numbers)]


def _numeric(word_key: str) -> bool:
    return word_key.isdigit() or word_key.startswith(DIGITS)


def _choose(candidates: list[Hit], text: str, lexicon: Lexicon) -> list[Hit]:
    """Mentions that no other one holds (``_taken``): the most words first, then the finer term ("Lisch nodules"
    over "Iris nodule" in "Lisch nodules of the iris"), then the surest. A mention that runs straight into
    another one's first word only modifies it ("soft cutaneous neurofibromas" is no "Soft skin")."""

    def rank(c: Hit):
        return -c.words, -len(lexicon.above(c.term_id)), -c.weight, c.start

    chosen: list[Hit] = []
    for cand in sorted(candidates, key=rank):
        if not any(_taken(cand, c, lexicon) for c in chosen):
            chosen.append(cand)
    starts = {c.start for c in chosen}
    return sorted(c for c in chosen if _next_word(text, c.end) not in starts)


def _coordinated(chosen: list[Hit], text: str, *, clauses: list[list[Word]], lexicon: Lexicon) -> list[Hit]:
    """Terms a mention shares words with across "and"/"or" or a comma: its last word swapped for the next item
    ("cleft lip and palate": Cleft palate), or its first word for the item before ("short and broad thumbs")."""
    found, held = [], {w[1] for words in clauses for w in words if any(h.start <= w[1] < h.end for h in chosen)}
    for words in clauses:
        for hit in chosen:
            inside = [
                n for n, (_, start, _) in enumerate(words) if hit.start <= start < hit.end and start != hit.skipped
            ]
            if len(inside) < 2:
                continue
            for step, swapped, edge in ((1, slice(0, -1), inside[-1]), (-1, slice(1, None), inside[0])):
                kept = [words[n][0] for n in inside[swapped]]
                while 0 <= edge + step < len(words) and _JOINT.fullmatch(text, *_between(words, edge, edge + step)):
                    edge += step
                    others = [
                        (other, digit)
                        for read, digit in _readings([*kept, words[edge][0]])
                        if (other := lexicon.labels.get(frozenset(read)))
                    ]
                    if not others or words[edge][0] in kept or words[edge][1] in held:
                        break
                    start, end = min(hit.start, words[edge][1]), max(hit.end, words[edge][2])
                    found += [
                        Hit(start, end, other[0] * GAP_PENALTY, other[1], len(inside), hit.negated, digit=digit)
                        for other, digit in others
                    ]
    return found


def _between(words: list[Word], one: int, other: int) -> tuple[int, int]:
    """The characters between two words of a clause."""
    first, second = sorted((one, other))
    return words[first][2], words[second][1]


def _taken(cand: Hit, chosen: Hit, lexicon: Lexicon) -> bool:
    """Whether a chosen mention holds the candidate's words: it lies inside (but for the extra word the chosen one
    skips: "clefted palate" in "high arched clefted palate", or when each names another digit of one series), or
    overlaps it with the same or a finer term."""
    if cand.digit and chosen.digit and cand.digit != chosen.digit:
        return False
    if chosen.start <= cand.start and cand.end <= chosen.end:
        return not cand.start <= chosen.skipped < cand.end
    return (
        cand.start < chosen.end
        and chosen.start < cand.end
        and (cand.term_id == chosen.term_id or cand.term_id in lexicon.above(chosen.term_id))
    )


def _next_word(text: str, end: int) -> int:
    """Where the word right after ``end`` starts when only spaces lie between; -1 otherwise."""
    spaces = _JOINED.match(text, end)
    return spaces.end() if spaces else -1
