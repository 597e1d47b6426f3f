"""Shared bits of the vocabulary tests; FIXTURES holds small cuts of each source's real files (one folder per
source)."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "data" / "vocabularies"


def relations_of(chunks) -> dict[tuple[str, str, str], object]:
    """(source, type, target) -> RelationRecord, over all chunks."""
    return {(r.source, r.type, r.target): r for c in chunks for r in c.relations}


def evidence_of(chunks) -> dict[str, object]:
    return {v.id: v for c in chunks for v in c.evidence}


def entities_of(chunks) -> dict[str, object]:
    """Name -> entity record (the last one written under that name)."""
    return {e.name: e for c in chunks for e in c.entities}
