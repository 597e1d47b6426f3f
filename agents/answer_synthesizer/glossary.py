"""The answer's glossary (after MedGraphRAG): the terms a reader meets, with curated definitions.

A reader meets the question's entities and what the answer and its citations' quotes name: the entities the
answer names and the ends of the paths and links they name. A path end the answer never mentions (a path shown
beside "What is metformin used for?" that ends in creatine) is not defined. Only curated definitions are listed
(HPO's, WordNet's glosses: above any model's confidence), each with its source and the vocabulary id the term
carries, so a reader can look it up.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypedDict

from amg.agents.answer_synthesizer.review import mentions
from amg.tools.kg.pipeline_types import GraphPath, Link, Named
from amg.tools.kg.schema import LEARNED_DESCRIPTION_CAP, normalize_key
from amg.tools.kg.store.protocols import QAReads

MAX_TERMS = 12
SOURCE_NAMES = {
    "vocabulary:hpo": "HPO",
    "vocabulary:mondo": "MONDO",
    "vocabulary:chebi": "ChEBI",
    "vocabulary:mesh": "MeSH",
    "vocabulary:icd10": "ICD-10-CM",
    "vocabulary:drugs": "DrugBank/MeSH",
    "vocabulary:who-eml": "WHO EML",
    "vocabulary:wordnet": "WordNet",
}
_ID = re.compile(r"^(HP|MONDO|DOID|CHEBI|MESH|OMIM|ORPHA|ICD10CM):", re.IGNORECASE)


class GlossaryEntry(TypedDict):
    term: str
    key: str
    definition: str
    source: str  # the vocabularies that define it ("HPO, MONDO"), or "curated"
    ids: list[str]  # the vocabulary ids it carries (HP:0001234), a few


def glossary(
    store: QAReads, entities: Sequence[Named], *, shown: list[GraphPath], links: Sequence[Link], read: str = ""
) -> list[GlossaryEntry]:
    """[{term, key, definition, source, ids}] for the ``entities`` (the question's and those the answer names) and
    the ends of the shown paths' steps and of the links that ``read`` (the answer and its quotes) mentions."""
    steps = [step for path in shown for step in path["steps"]] + list(links)
    ends = dict.fromkeys(name for step in steps for name in (step["source"], step["target"]))
    names = [e["name"] for e in entities] + [name for name in ends if mentions(read, name)]
    keys = list(dict.fromkeys(hit[0]["key"] for hit in store.lookup(_keys(names)).values()))
    found = store.entities(keys)
    terms: list[GlossaryEntry] = []
    for key in keys:
        entity = found.get(key)
        description = entity.get("description") if entity else None
        if entity is None or not description or (entity.get("description_confidence") or 0) <= LEARNED_DESCRIPTION_CAP:
            continue
        sources = [SOURCE_NAMES.get(s, s) for s in entity.get("sources") or [] if s.startswith("vocabulary:")]
        terms.append(
            {
                "term": entity["name"],
                "key": key,
                "definition": description,
                "source": ", ".join(sources) or "curated",
                "ids": [a for a in entity.get("aliases") or [] if _ID.match(a)][:4],
            }
        )
    return terms[:MAX_TERMS]


def _keys(names: list[str]) -> list[str]:
    return list(dict.fromkeys(k for k in (normalize_key(n) for n in names) if k))
