"""HPO phenotype mentions in free text, each present or negated, with a confidence.

Within a clause, every run of meaningful words (stop words skipped) whose word keys (words.py) form
the key set of an HPO label names that term, in any word order: "dislocated lenses of both eyes" holds
{disloc, len} = "Lens dislocation" (Ectopia lentis), "freckling in both axillae" = "Axillary freckling".
A run across a comma (list items) must be a label as written ("Nystagmus, pendular"). A run with one
extra word inside it, not across "and"/"or", still names the label (confidence x 0.85), negated when
that word is one ("lenses are not dislocated"). Mentions of more label words win over those inside
them. An acronym label ("PDA") matches only as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from amg.tools.kg.schema import normalize_key
from amg.tools.phenotypes.lexicon import Lexicon, hpo_lexicon
from amg.tools.phenotypes.negation import is_negated, negated_ranges
from amg.tools.phenotypes.words import QUANTITY, key, tokens

GAP_PENALTY = 0.85
MULTIPLE = key("multiple")
_CLAUSE = re.compile(r"[.;:?!()\[\]\n]")
_LIST = re.compile(r"\b(?:and|or|nor)\b", re.IGNORECASE)  # no extra word is skipped across them
_JOINED = re.compile(r"[ \t]+")  # only spaces between two words
NEGATORS = {key(w) for w in ("no", "not", "never", "without")}  # the extra word inside: "lenses are not dislocated"


class Hit(NamedTuple):
    start: int
    end: int
    weight: float
    term_id: str
    words: int  # label words matched
    negated: bool = False  # a negation is the extra word inside it


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
    scopes = negated_ranges(text)
    for hit in _choose(_candidates(text, lexicon), text, lexicon):
        term = lexicon.terms[hit.term_id]
        negated = hit.negated or is_negated(text, hit.start, hit.end, scopes)
        found.append(Mention(term.id, term.name, term.key, text[hit.start : hit.end], hit.start, hit.end,
                             round(hit.weight, 3), negated))  # fmt: skip
    best: dict[str, Mention] = {}
    for mention in found:
        held = best.get(mention.id)
        if held is None or (held.negated and not mention.negated):
            best[mention.id] = mention
    return sorted(best.values(), key=lambda m: m.start)


def _clauses(text: str) -> list[list[tuple[str, int, int]]]:
    """Per clause, its meaningful words as (key, start, end); a quantity ("more than six") is one "multiple"."""
    clauses, current = [], []
    bounds = sorted(m.start() for m in _CLAUSE.finditer(text))
    counts = [(m.start(), m.end()) for m in QUANTITY.finditer(text)]
    for word, start, end in tokens(text):
        if current and any(current[-1][2] <= b < start for b in bounds):
            clauses.append(current)
            current = []
        count = next(((a, b) for a, b in counts if a <= start < b), None)
        if count and current and current[-1][1] >= count[0]:
            continue  # the rest of a quantity already read
        if word_key := (MULTIPLE if count else key(word)):
            current.append((word_key, start, end))
    return [c for c in [*clauses, current] if c]


def _candidates(text: str, lexicon: Lexicon) -> list[Hit]:
    """Every run of words that names a label, and every acronym."""
    found = [Hit(start, end, *lexicon.acronyms[word], 1) for word, start, end in tokens(text) if word in lexicon.acronyms]
    for words in _clauses(text):
        for i, (_, start, _) in enumerate(words):
            for j in range(i, min(len(words), i + lexicon.longest + 1)):
                run, end = [w for w, _, _ in words[i : j + 1]], words[j][2]
                listed = "," in text[start:end]  # list items, unless a label is written so ("Nystagmus, pendular")
                hit = lexicon.verbatim.get(normalize_key(text[start:end]))
                hit = hit or (None if listed else lexicon.labels.get(frozenset(run)))
                if hit and len(set(run)) == len(run):
                    found.append(Hit(start, end, *hit, len(run)))
                    continue
                for gap in range(1, len(run) - 1 if not (listed or _LIST.search(text, start, end)) else 1):
                    rest = run[:gap] + run[gap + 1 :]  # one extra word inside: "dilated (proximal) aortic root"
                    hit = lexicon.labels.get(frozenset(rest))
                    if hit and len(set(rest)) == len(rest) and run[gap] not in rest:
                        found.append(Hit(start, end, hit[0] * GAP_PENALTY, hit[1], len(rest), run[gap] in NEGATORS))
                        break
    return found


def _choose(candidates: list[Hit], text: str, lexicon: Lexicon) -> list[Hit]:
    """Non-overlapping mentions: the most words first, then the finer term ("Lisch nodules" over "Iris
    nodule" in "Lisch nodules of the iris"), then the surest. A mention that runs straight into another
    one's first word only modifies it ("soft cutaneous neurofibromas" is no "Soft skin")."""
    def rank(c: Hit):
        return -c.words, -len(lexicon.above(c.term_id)), -c.weight, c.start

    chosen: list[Hit] = []
    for cand in sorted(candidates, key=rank):
        if all(cand.end <= c.start or cand.start >= c.end for c in chosen):
            chosen.append(cand)
    starts = {c.start for c in chosen}
    return sorted(c for c in chosen if _next_word(text, c.end) not in starts)


def _next_word(text: str, end: int) -> int:
    """Where the word right after ``end`` starts when only spaces lie between; -1 otherwise."""
    spaces = _JOINED.match(text, end)
    return spaces.end() if spaces else -1
