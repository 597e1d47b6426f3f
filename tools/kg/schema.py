"""Fixed vocabularies of the knowledge graph and the normalisation of entity keys.

Entity types and relation types are closed sets: text from an LLM is mapped onto them
(or onto ``other`` / ``associated_with``), never used as a label or relationship type.
Relations are stored once, in their forward direction, as ``(:Entity)-[:RELATES {type}]->(:Entity)``;
traversal follows both directions and names a backward step with the inverse below.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import KW_ONLY, dataclass
from functools import lru_cache

ENTITY_TYPES = (
    "disease",
    "drug",
    "phenotype",
    "gene",
    "procedure",
    "anatomy",
    "test",
    "organism",
    "other",
)

ENTITY_TYPE_ALIASES = {
    "symptom": "phenotype",
    "sign": "phenotype",
    "finding": "phenotype",
    "condition": "disease",
    "disorder": "disease",
    "syndrome": "disease",
    "medication": "drug",
    "chemical": "drug",
    "protein": "gene",
    "treatment": "procedure",
    "surgery": "procedure",
    "lab": "test",
    "diagnostic": "test",
    "bacterium": "organism",
    "virus": "organism",
    "pathogen": "organism",
    "organ": "anatomy",
    "tissue": "anatomy",
    "body part": "anatomy",
}

ACTS = frozenset({"drug", "procedure"})  # entity types that act on a condition
CONDITIONS = frozenset({"disease", "phenotype"})


@dataclass(frozen=True)
class RelationType:
    """A relation: its name read forwards and backwards, the entity types its ends may have (None = any),
    whether only curated sources state it, and a hint for the model that extracts it."""

    name: str
    inverse: str
    _: KW_ONLY
    sources: frozenset[str] | None = None
    targets: frozenset[str] | None = None
    curated_only: bool = False
    hint: str = ""
    finding: bool = False  # a study's result, stated only by the finding reader (agents/finding_reader/reader.py)


RELATIONS = (
    RelationType("treats", "treated_by", sources=ACTS, targets=CONDITIONS | {"organism"}),
    RelationType("causes", "caused_by", sources=None, targets=CONDITIONS),
    RelationType("prevents", "prevented_by", sources=ACTS, targets=CONDITIONS | {"organism"}),
    RelationType("contraindicated_with", "contraindicated_with", sources=ACTS),
    RelationType("interacts_with", "interacts_with"),
    RelationType("symptom_of", "has_symptom", sources=CONDITIONS, targets=frozenset({"disease"})),
    RelationType("diagnoses", "diagnosed_by", sources=ACTS | {"test"}, targets=CONDITIONS),
    RelationType("risk_factor_for", "has_risk_factor", sources=None, targets=CONDITIONS),
    RelationType("complication_of", "has_complication", sources=CONDITIONS, targets=CONDITIONS | ACTS),
    RelationType("associated_with", "associated_with", hint="only when nothing more specific fits"),
    RelationType("is_a", "has_subtype"),
    RelationType("part_of", "has_part"),
    RelationType("gene_associated_with", "has_associated_gene", sources=frozenset({"gene"}), targets=CONDITIONS),
    RelationType("located_in", "site_of", sources=None, targets=frozenset({"anatomy"})),
    RelationType(
        "adverse_effect_of",
        "has_adverse_effect",
        sources=CONDITIONS,
        targets=ACTS,
        hint="has_adverse_effect: <other> is an unwanted effect of the drug",
    ),
    # a drug's role or mechanism (ChEBI: metformin has_role hypoglycemic agent)
    RelationType("has_role", "role_of", sources=frozenset({"drug"}), curated_only=True),
    # membership of a curated list's category (WHO essential medicines)
    RelationType("member_of", "has_member", curated_only=True),
    # what a study found, read from its abstract with its PMID and population ("X improves Y in Z")
    RelationType("improves", "improved_by", finding=True, hint="the study found that it helps or increases it"),
    RelationType("worsens", "worsened_by", finding=True, hint="the study found that it harms or decreases it"),
    RelationType("no_effect_on", "unaffected_by", finding=True, hint="the study found no effect or difference"),
    RelationType("predicts", "predicted_by", finding=True, hint="the study found it predicts or detects it"),
    RelationType("not_associated_with", "not_associated_with", finding=True, hint="the study found no association"),
)
RELATION_INVERSES = {r.name: r.inverse for r in RELATIONS}  # relation type -> its name read backwards
RELATION_TYPES = tuple(RELATION_INVERSES)
CURATED_ONLY = frozenset(r.name for r in RELATIONS if r.curated_only)  # never stated by a model
STUDY_RESULTS = tuple(
    r.name for r in RELATIONS if r.finding
)  # only a study states them (agents/finding_reader/reader.py)
FINDINGS = tuple(r for r in RELATIONS if r.finding) + tuple(r for r in RELATIONS if r.name == "associated_with")

# a model's description never gets a higher confidence; curated definitions sit above it (WordNet's glosses 0.97,
# the ontologies' own 1.0), so a model never replaces them and the audit never re-checks them
LEARNED_DESCRIPTION_CAP = 0.95
EVIDENCE_KINDS = ("pubmed", "wikipedia", "textbook", "vocabulary")

MAX_NAME_CHARS = 300

_PUNCT = re.compile(r"[^\w\s+-]")
_SPACE = re.compile(r"\s+")
_PLURAL_KEEP = ("ss", "us", "is", "ous", "as", "os", "ics", "ae")
# words that end like plurals but are singular (or only used in the plural) in medicine
_SINGULAR_WORDS = frozenset(
    "diabetes herpes rabies scabies caries feces faeces species series ascites measles mumps rickets "
    "shingles hives aids lues tabes menses nates pubes striae pertussis tetanus".split()
)
_PLURAL_ENDINGS = {"ies": "y", "oses": "osis", "uses": "us"}
_POSSESSIVE = re.compile(r"(\w)['’]s\b")


@lru_cache(maxsize=1 << 18)  # seeding asks for the same names hundreds of thousands of times
def normalize_key(name: str) -> str:
    """Case-, punctuation-, whitespace- and simple-plural-insensitive key of a name.

    >>> normalize_key("  Type-2 Diabetes  Mellitus ") == normalize_key("type 2 diabetes mellitus")
    True
    """
    text = unicodedata.normalize("NFKC", name).casefold()
    text = _POSSESSIVE.sub(r"\1", text)  # "Crohn's disease" -> "crohn disease"
    text = _PUNCT.sub(" ", text).replace("-", " ").replace("_", " ")
    words = [_singular(w) for w in _SPACE.split(text.strip()) if w]
    return " ".join(words)


def _singular(word: str) -> str:
    if len(word) <= 3 or word in _SINGULAR_WORDS:
        return word
    for ending, replacement in _PLURAL_ENDINGS.items():
        if word.endswith(ending) and len(word) > len(ending) + 2:
            return word[: -len(ending)] + replacement
    if word.endswith("s") and not word.endswith(_PLURAL_KEEP):
        return word[:-1]
    return word


def validate_name(name: object) -> str:
    """The stripped name, or ValueError with a readable message."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError("entity name is empty")
    name = _SPACE.sub(" ", name.strip())
    if len(name) > MAX_NAME_CHARS:
        raise ValueError(f"entity name is {len(name)} characters; at most {MAX_NAME_CHARS} are allowed")
    if not normalize_key(name):
        raise ValueError(f"entity name {name[:40]!r} has no letters or digits")
    return name


def entity_type(raw: str | None) -> str:
    """Map free text onto ENTITY_TYPES (``other`` when unknown)."""
    text = (raw or "").strip().lower().replace("/", " ")
    if text in ENTITY_TYPES:
        return text
    for alias, mapped in ENTITY_TYPE_ALIASES.items():
        if alias in text:
            return mapped
    return next((t for t in ENTITY_TYPES if t in text), "other")


def relation_type(raw: str | None) -> tuple[str, bool]:
    """Map free text onto RELATION_TYPES: (type, reversed).

    ``reversed`` is True when the text named the inverse (``treated_by``), so the
    caller swaps source and target. Unknown text maps to ``associated_with``.
    """
    text = re.sub(r"[^a-z]+", "_", (raw or "").strip().lower()).strip("_")
    if text in RELATION_INVERSES:
        return text, False
    for forward, inverse in RELATION_INVERSES.items():
        if text == inverse:
            return forward, True
    return "associated_with", False


def score_to_confidence(score: float) -> float:
    """The paper's 1-10 relevance score as a confidence in [0, 1]."""
    return round(min(max(float(score), 1.0), 10.0) / 10.0, 3)


def learned_confidence(score: float, reliability: float) -> float:
    """The confidence of a relation a model read from evidence: its 1-10 score as a confidence, times the model's
    measured reliability reading evidence (its relation-extraction precision)."""
    return round(score_to_confidence(score) * reliability, 3)
