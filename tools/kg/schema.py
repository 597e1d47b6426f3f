"""Fixed vocabularies of the knowledge graph and the normalisation of entity keys.

Entity types and relation types are closed sets: text from an LLM is mapped onto them
(or onto ``other`` / ``associated_with``), never used as a label or relationship type.
Relations are stored once, in their forward direction, as ``(:Entity)-[:RELATES {type}]->(:Entity)``;
traversal follows both directions and names a backward step with the inverse below.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

ENTITY_TYPES = (
    "disease", "drug", "phenotype", "gene", "procedure", "anatomy", "test", "organism", "other",
)  # fmt: skip

ENTITY_TYPE_ALIASES = {
    "symptom": "phenotype", "sign": "phenotype", "finding": "phenotype", "condition": "disease",
    "disorder": "disease", "syndrome": "disease", "medication": "drug", "chemical": "drug",
    "protein": "gene", "treatment": "procedure", "surgery": "procedure", "lab": "test",
    "diagnostic": "test", "bacterium": "organism", "virus": "organism", "pathogen": "organism",
    "organ": "anatomy", "tissue": "anatomy", "body part": "anatomy",
}  # fmt: skip

# relation type -> name of the same relation read backwards
RELATION_INVERSES = {
    "treats": "treated_by",
    "causes": "caused_by",
    "prevents": "prevented_by",
    "contraindicated_with": "contraindicated_with",
    "interacts_with": "interacts_with",
    "symptom_of": "has_symptom",
    "diagnoses": "diagnosed_by",
    "risk_factor_for": "has_risk_factor",
    "complication_of": "has_complication",
    "associated_with": "associated_with",
    "is_a": "has_subtype",
    "part_of": "has_part",
    "gene_associated_with": "has_associated_gene",
    "located_in": "site_of",
    "adverse_effect_of": "has_adverse_effect",
    "has_role": "role_of",  # a drug's role or mechanism (ChEBI: metformin has_role hypoglycemic agent)
    "member_of": "has_member",  # membership of a curated list's category (WHO essential medicines)
}
RELATION_TYPES = tuple(RELATION_INVERSES)
CURATED_ONLY = frozenset({"has_role", "member_of"})  # stated by curated sources only, never by a model

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
