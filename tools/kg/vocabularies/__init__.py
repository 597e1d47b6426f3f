"""Authoritative vocabularies that seed the foundation knowledge graph.

Each module yields ``SeedChunk``s: small logical writes (entities with their evidence
and curated relations) that the seeding driver writes one transaction each.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from amg.tools.kg.records import EntityRecord, EvidenceRecord, RelationRecord
from amg.tools.kg.schema import normalize_key


@dataclass
class SeedChunk:
    entities: list[EntityRecord] = field(default_factory=list)
    evidence: list[EvidenceRecord] = field(default_factory=list)
    relations: list[RelationRecord] = field(default_factory=list)
    supports: list[tuple[str, str]] = field(default_factory=list)

    def relate(
        self,
        source: str,
        target: str,
        *,
        type_: str,
        evidence_id: str,
        description: str,
        origin: str,
        confidence: float = 1.0,
    ) -> None:
        """Add a curated relation with its source's confidence policy (score = 10 x confidence); no self-loops."""
        if normalize_key(source) != normalize_key(target):
            self.relations.append(
                RelationRecord(
                    source,
                    target,
                    type=type_,
                    confidence=confidence,
                    evidence_ids=[evidence_id],
                    score_raw=round(10 * confidence, 2),
                    description=description,
                    origin=origin,
                )
            )

    def __len__(self) -> int:
        return len(self.entities) + len(self.relations)
