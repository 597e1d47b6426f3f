"""Named reads of the graph's raw state, for tests and benchmarks that check what was written
(an edge's model and origin, an entity's supports). Part of ``Neo4jStore`` (mixed into it);
the agents and graphs never need them. Test stagings (an empty graph, a stale entity) are
amg.testing.graph_staging."""

from __future__ import annotations

from typing import cast

from amg.tools.kg.records import EvidenceProps
from amg.tools.kg.store.bolt_access import BoltAccess
from amg.tools.kg.store.rows import OutgoingRelation, StoredRelation


class InspectionQueries(BoltAccess):
    """Mixed into ``Neo4jStore``, which implements ``read`` and ``write`` (bolt_access.py)."""

    def outgoing(self, key: str, relation_type: str | None = None) -> list[OutgoingRelation]:
        """The relations leaving entity ``key`` (optionally of one type): target key and all properties."""
        rows = self.read(
            """MATCH (:Entity {key: $key})-[r:RELATES]->(t:Entity)
               WHERE $type IS NULL OR r.type = $type
               RETURN t.key AS target, properties(r) AS props ORDER BY t.key""",
            key=key,
            type=relation_type,
        )
        return cast(list[OutgoingRelation], rows)

    def supports(self, key: str) -> list[EvidenceProps]:
        """Properties of the evidence items entity ``key`` is supported by."""
        rows = self.read("MATCH (:Entity {key: $key})-[:SUPPORTED_BY]->(v:Evidence) RETURN properties(v) AS v", key=key)
        return [cast(EvidenceProps, row["v"]) for row in rows]

    def all_relations(self) -> list[StoredRelation]:
        """Every relation: source and target keys and all properties."""
        rows = self.read(
            "MATCH (a:Entity)-[r:RELATES]->(b:Entity) RETURN a.key AS source, b.key AS target, properties(r) AS props"
        )
        return cast(list[StoredRelation], rows)

    def evidence_ids(self) -> set[str]:
        return {row["id"] for row in self.read("MATCH (v:Evidence) RETURN v.id AS id")}

    def count_entities(self, key: str) -> int:
        return self.read("MATCH (e:Entity {key: $key}) RETURN count(e) AS n", key=key)[0]["n"]
