"""The drug names of the graph (drug-named-entity-recognition, as ``drugs.py`` names them) and a lookup by any
spelling, so other vocabularies link to the same drug entities instead of creating near-duplicates."""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import TypedDict

from amg.tools.kg.schema import MAX_NAME_CHARS, normalize_key


def fold(text: str) -> str:
    """``normalize_key`` without accents: "Warfarine" and "warfarine" and "wärfarine" match."""
    decomposed = unicodedata.normalize("NFKD", text)
    return normalize_key("".join(c for c in decomposed if not unicodedata.combining(c)))


class DrugData(TypedDict, total=False):
    """What drug-named-entity-recognition holds of a drug (the fields the vocabularies read)."""

    name: str
    synonyms: list[str] | str  # some entries keep the list as its repr
    mesh_id: str
    drugbank_id: str
    wikipedia_url: str


def synonyms(data: DrugData) -> list[str]:
    found = data.get("synonyms") or []
    if isinstance(found, str):  # some entries keep the list as its repr
        found = [s.strip(" '\"") for s in found.strip("[]").split("',")]
    return [s for s in found if isinstance(s, str) and 0 < len(s.strip()) <= MAX_NAME_CHARS]


@lru_cache(maxsize=1)
def entries() -> tuple[tuple[str, str, DrugData], ...]:
    """(canonical key, entity name, data) of every drug the drugs vocabulary writes, in its order."""
    from drug_named_entity_recognition import drugs_finder

    drugs: dict[str, DrugData] = drugs_finder.drug_canonical_to_data
    named = ((c, str(drugs[c].get("name") or c).strip(), drugs[c]) for c in sorted(drugs))
    return tuple((c, name, data) for c, name, data in named if name and len(name) <= MAX_NAME_CHARS)


@lru_cache(maxsize=1)
def lookup() -> dict[str, str]:
    """Folded spelling -> drug name. Names win over synonyms; a synonym shared by two drugs maps to neither."""
    by_name = {fold(name): name for _, name, _ in reversed(entries())}
    by_synonym: dict[str, str | None] = {}
    for _, name, data in entries():
        for key in {fold(s) for s in synonyms(data)} - by_name.keys():
            by_synonym[key] = name if by_synonym.get(key, name) == name else None
    return {**{k: v for k, v in by_synonym.items() if v}, **by_name}
