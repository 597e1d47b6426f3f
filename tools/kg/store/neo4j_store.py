"""The graph store over the official neo4j driver (Neo4j 5, or the embedded ArcadeDB over Bolt).

``Neo4jStore`` implements every contract of tools/kg/store/protocols.py: its plumbing, writes, export and
import are here; its knowledge reads, bookkeeping, literature changes and inspection reads are mixed in from
the other neo4j_* modules. Every statement is parameterised; labels and relationship types are fixed strings.
One logical write (entities + evidence + relations) is one transaction, retried as a
whole on transient and constraint conflicts (concurrent writers MERGE-ing one key).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, cast

from neo4j import READ_ACCESS, Driver, ManagedTransaction
from neo4j.exceptions import (
    ConstraintError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)
from tenacity import (
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_random_exponential,
)

from amg.tools.kg.records import EntityRecord, EvidenceRecord, RelationRecord, Rescored, WriteSummary, utc_now
from amg.tools.kg.schema import normalize_key, score_to_confidence
from amg.tools.kg.store.bolt_access import T
from amg.tools.kg.store.neo4j_bookkeeping import BookkeepingQueries
from amg.tools.kg.store.neo4j_inspection import InspectionQueries
from amg.tools.kg.store.neo4j_literature import LiteratureQueries
from amg.tools.kg.store.neo4j_reads import KnowledgeQueries
from amg.tools.kg.store.neo4j_records import RECORD_SCHEMA, RecordQueries
from amg.tools.kg.store.neo4j_writes import EXISTING_RELATIONS, UPDATE_RELATIONS, write_unit
from amg.tools.kg.store.rows import ExportRow

SCHEMA = (
    "CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (e:Entity) REQUIRE e.key IS UNIQUE",
    "CREATE CONSTRAINT evidence_id IF NOT EXISTS FOR (v:Evidence) REQUIRE v.id IS UNIQUE",
    "CREATE CONSTRAINT alias_key IF NOT EXISTS FOR (a:Alias) REQUIRE a.key IS UNIQUE",
    "CREATE INDEX entity_type IF NOT EXISTS FOR (e:Entity) ON (e.type)",
    "CREATE INDEX entity_refreshed IF NOT EXISTS FOR (e:Entity) ON (e.refreshed_at)",
    "CREATE INDEX entity_created IF NOT EXISTS FOR (e:Entity) ON (e.created_at)",
    "CREATE INDEX evidence_reread IF NOT EXISTS FOR (v:Evidence) ON (v.reread_at)",
    # a study's findings are a few edges among ~400k curated ones: read by their type, never by a scan
    "CREATE INDEX relates_type IF NOT EXISTS FOR ()-[r:RELATES]-() ON (r.type)",
)
# export: references before what they point to (relations before entities), so a graph written to meanwhile
# still exports self-consistent (nothing is ever deleted from it)
_EXPORT = (
    "MATCH (a:Entity)-[r:RELATES]->(b:Entity) RETURN 'relation' AS kind, a.key AS source, b.key AS target, "
    "properties(r) AS props",
    "MATCH (e:Entity)-[:SUPPORTED_BY]->(v:Evidence) RETURN 'support' AS kind, e.key AS entity, v.id AS evidence",
    "MATCH (a:Alias)-[:ALIAS_OF]->(e:Entity) RETURN 'alias' AS kind, e.key AS entity, a.key AS key, a.name AS name",
    "MATCH (e:Entity) RETURN 'entity' AS kind, e.key AS key, properties(e) AS props",
    "MATCH (v:Evidence) RETURN 'evidence' AS kind, v.id AS id, properties(v) AS props",
    "MATCH (s:SeedState) RETURN 'seed_state' AS kind, s.origin AS origin, s.done AS done, s.complete AS complete",
)
_RESTORE = {
    "entity": "UNWIND $rows AS row MERGE (e:Entity {key: row.key}) SET e = row.props",
    "evidence": "UNWIND $rows AS row MERGE (v:Evidence {id: row.id}) SET v = row.props",
    "alias": """UNWIND $rows AS row MATCH (e:Entity {key: row.entity})
                MERGE (a:Alias {key: row.key}) SET a.name = row.name MERGE (a)-[:ALIAS_OF]->(e)""",
    "support": """UNWIND $rows AS row MATCH (e:Entity {key: row.entity}), (v:Evidence {id: row.evidence})
                  MERGE (e)-[:SUPPORTED_BY]->(v)""",
    "relation": """UNWIND $rows AS row MATCH (a:Entity {key: row.source}), (b:Entity {key: row.target})
                   MERGE (a)-[r:RELATES {type: row.props.type}]->(b) SET r = row.props""",
    "seed_state": """UNWIND $rows AS row MERGE (s:SeedState {origin: row.origin})
                     SET s.done = row.done, s.complete = row.complete""",
}
EXPORT_PAGE = 2000
_RETRYABLE = (ConstraintError, TransientError, ServiceUnavailable, SessionExpired)


class Neo4jStore(KnowledgeQueries, BookkeepingQueries, InspectionQueries, LiteratureQueries, RecordQueries):
    """The ``GraphStore`` contracts (tools/kg/store/protocols.py) over the neo4j driver."""

    def __init__(self, driver: Driver, database: str | None = None):
        self._driver = driver
        self._database = database or None

    # -- plumbing -----------------------------------------------------------------------
    def read(self, query: str, **params: object) -> list[dict[str, Any]]:
        records, _, _ = self._driver.execute_query(query, params, database_=self._database, routing_="r")
        return [record.data() for record in records]

    def write(self, work: Callable[..., T], *args: object) -> T:
        """Run ``work(tx, *args)`` in one transaction, retried whole on conflicts.

        A ``Retrying`` loop rather than tenacity's ``@retry``, whose typing of a method drops ``work``'s result type.
        """
        for attempt in Retrying(
            retry=retry_if_exception_type(_RETRYABLE),
            stop=stop_after_attempt(8),
            wait=wait_random_exponential(multiplier=0.05, max=2),
            reraise=True,
        ):
            with attempt, self._driver.session(database=self._database) as session:
                return session.execute_write(work, *args)
        raise AssertionError("unreachable: the last attempt's error is reraised")

    def ensure_schema(self) -> None:
        for statement in (*SCHEMA, *RECORD_SCHEMA):
            self._driver.execute_query(statement, database_=self._database)

    def server_agent(self) -> str:
        """What the server calls itself ("Neo4j/5.26.0")."""
        return self._driver.get_server_info().agent

    def close(self) -> None:
        self._driver.close()

    # -- writes -------------------------------------------------------------------------
    def upsert(
        self,
        entities: Iterable[EntityRecord] = (),
        evidence: Iterable[EvidenceRecord] = (),
        *,
        relations: Iterable[RelationRecord] = (),
        supports: Iterable[tuple[str, str]] = (),
    ) -> WriteSummary:
        """Write one logical unit in one transaction; relation endpoints are created if missing."""
        entities, evidence, relations = list(entities), list(evidence), list(relations)
        by_key = {e.key: e for e in entities}
        endpoints: dict[str, str] = {}
        for rel in relations:
            for key, name in ((rel.source_key, rel.source), (rel.target_key, rel.target)):
                if key not in by_key:
                    endpoints.setdefault(key, name)
        supports = [(normalize_key(k), v) for k, v in supports]
        chosen = list(by_key.values())
        return self.write(
            lambda tx: write_unit(
                tx, chosen, endpoints=endpoints, evidence=evidence, relations=relations, supports=supports
            )
        )

    def mark_weakened(self, items: list[Rescored], model: str) -> int:
        """Existing relations re-scored under the keep threshold: marked ``weakened``, never deleted.

        Each item is {source, type, target, score, evidence_ids}; the new confidence and the
        evidence that caused it are appended to the relation's history.
        """

        def work(tx: ManagedTransaction) -> int:
            now, marked = utc_now(), 0
            for item in items:
                ident = {"s": normalize_key(item["source"]), "t": normalize_key(item["target"]), "type": item["type"]}
                found = tx.run(EXISTING_RELATIONS, rows=[ident]).data()
                if not found:
                    continue
                props = found[0]["props"]
                confidence = item.get("confidence", score_to_confidence(item["score"]))
                event = {
                    "at": now,
                    "event": "weakened",
                    "previous": props.get("confidence"),
                    "confidence": confidence,
                    "score_raw": item["score"],
                    "evidence_ids": item["evidence_ids"],
                    "origin": "refresh",
                    "model": model,
                }
                update = {
                    "confidence": confidence,
                    "status": "weakened",
                    "updated_at": now,
                    "history": list(props.get("history") or []) + [json.dumps(event)],
                }
                tx.run(UPDATE_RELATIONS, rows=[{**ident, "props": update}]).consume()
                marked += 1
            return marked

        return self.write(work) if items else 0

    def touch(self, keys: list[str], field_name: str) -> None:
        """Set ``refreshed_at`` to now, or add one to ``hits`` (question traffic)."""
        if field_name == "refreshed_at":
            query = "UNWIND $keys AS k MATCH (e:Entity {key: k}) SET e.refreshed_at = $now"
        elif field_name == "hits":
            query = "UNWIND $keys AS k MATCH (e:Entity {key: k}) SET e.hits = coalesce(e.hits, 0) + 1"
        else:
            raise ValueError(f"cannot touch {field_name!r}")
        self.write(lambda tx: tx.run(query, keys=keys, now=utc_now()).consume())

    # -- export and import (tools/kg/transfer/export_import.py) -----------------------------------------
    def export_records(self) -> Iterator[ExportRow]:
        """Every record of the graph, streamed: one query per kind, references before their targets."""
        with self._driver.session(
            database=self._database, default_access_mode=READ_ACCESS, fetch_size=EXPORT_PAGE
        ) as session:
            for query in _EXPORT:
                for record in session.run(query):
                    row = record.data()
                    if row["kind"] == "seed_state" and row["complete"] is None:
                        row["complete"] = False
                    yield cast(ExportRow, row)

    def restore(self, kind: str, rows: Sequence[ExportRow]) -> None:
        """Write checked records of one kind exactly as exported (properties, timestamps and history)."""
        self.write(lambda tx: tx.run(_RESTORE[kind], rows=rows).consume())
