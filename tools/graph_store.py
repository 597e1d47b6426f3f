"""The knowledge-graph store: a small typed contract and its neo4j-driver implementation.

Every statement is parameterised; labels and relationship types are fixed strings.
One logical write (entities + evidence + relations) is one transaction, retried as a
whole on transient and constraint conflicts (concurrent writers MERGE-ing one key).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Iterable, Protocol

from neo4j import Driver, ManagedTransaction
from neo4j.exceptions import ConstraintError, ServiceUnavailable, SessionExpired, TransientError
from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_random_exponential

from tools.graph_records import EntityRecord, EvidenceRecord, GapReport, RelationRecord, utc_now
from tools.kg_schema import normalize_key

SCHEMA = (
    "CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (e:Entity) REQUIRE e.key IS UNIQUE",
    "CREATE CONSTRAINT evidence_id IF NOT EXISTS FOR (v:Evidence) REQUIRE v.id IS UNIQUE",
    "CREATE CONSTRAINT alias_key IF NOT EXISTS FOR (a:Alias) REQUIRE a.key IS UNIQUE",
    "CREATE INDEX entity_type IF NOT EXISTS FOR (e:Entity) ON (e.type)",
    "CREATE INDEX entity_refreshed IF NOT EXISTS FOR (e:Entity) ON (e.refreshed_at)",
)
BATCH = 1000

_UPSERT_ENTITIES = """
UNWIND $rows AS row
MERGE (e:Entity {key: row.key})
ON CREATE SET e.name = row.name, e.type = row.type, e.created_at = $now, e.refreshed_at = $now,
              e.aliases = [], e.sources = [], e.description_confidence = 0.0
SET e.updated_at = $now,
    e.type = CASE WHEN e.type = 'other' THEN row.type ELSE e.type END,
    e.aliases = [a IN coalesce(e.aliases, []) WHERE NOT a IN row.aliases] + row.aliases,
    e.sources = [s IN coalesce(e.sources, []) WHERE NOT s IN row.sources] + row.sources
WITH e, row WHERE row.description IS NOT NULL
  AND row.description_confidence >= coalesce(e.description_confidence, 0.0)
SET e.description = row.description, e.description_confidence = row.description_confidence
"""
_ENSURE_ENTITIES = """
UNWIND $rows AS row
MERGE (e:Entity {key: row.key})
ON CREATE SET e.name = row.name, e.type = 'other', e.created_at = $now, e.updated_at = $now,
              e.refreshed_at = $now, e.aliases = [], e.sources = [], e.description_confidence = 0.0
"""
_UPSERT_ALIASES = """
UNWIND $rows AS row
MATCH (e:Entity {key: row.entity})
MERGE (a:Alias {key: row.key}) ON CREATE SET a.name = row.name
MERGE (a)-[:ALIAS_OF]->(e)
"""
_UPSERT_EVIDENCE = """
UNWIND $rows AS row
MERGE (v:Evidence {id: row.id})
ON CREATE SET v += row
"""
_SUPPORTS = """
UNWIND $rows AS row
MATCH (e:Entity {key: row.entity}), (v:Evidence {id: row.evidence})
MERGE (e)-[:SUPPORTED_BY]->(v)
"""
# Both endpoints are bound before the edge is matched, so the server can expand from the
# smaller side: anchoring on one end costs O(degree) on hubs (a phenotype with 2,000 diseases).
_EXISTING_RELATIONS = """
UNWIND $rows AS row
MATCH (a:Entity {key: row.s}) MATCH (b:Entity {key: row.t})
MATCH (a)-[r:RELATES {type: row.type}]->(b)
RETURN row.s AS s, row.t AS t, row.type AS type, properties(r) AS props
"""
_CREATE_RELATIONS = """
UNWIND $rows AS row
MATCH (a:Entity {key: row.s}) MATCH (b:Entity {key: row.t})
CREATE (a)-[r:RELATES]->(b)
SET r = row.props
"""
_UPDATE_RELATIONS = """
UNWIND $rows AS row
MATCH (a:Entity {key: row.s}) MATCH (b:Entity {key: row.t})
MATCH (a)-[r:RELATES {type: row.type}]->(b)
SET r += row.props
"""


@dataclass
class WriteSummary:
    entities: int = 0
    evidence: int = 0
    relations_written: int = 0
    relations_unchanged: int = 0
    keys: list[str] = field(default_factory=list)


class GraphStore(Protocol):
    """What agents need from the graph; see Neo4jGraphStore for the semantics."""

    def upsert(self, entities=(), evidence=(), relations=(), supports=()) -> WriteSummary: ...
    def get_entity(self, name: str) -> dict | None: ...
    def neighbors(self, keys: list[str], min_confidence: float, per_node: int) -> list[dict]: ...
    def gap_check(self, keys: list[str], tau: float, stale_before: str, min_relations: int) -> list[GapReport]: ...
    def evidence(self, ids: list[str]) -> list[dict]: ...


_RETRYABLE = (ConstraintError, TransientError, ServiceUnavailable, SessionExpired)


class Neo4jGraphStore:
    """GraphStore over the official neo4j driver (Neo4j 5 or the embedded ArcadeDB)."""

    def __init__(self, driver: Driver, database: str | None = None):
        self.driver = driver
        self.database = database or None

    # -- plumbing -----------------------------------------------------------------------
    def read(self, query: str, **params) -> list[dict]:
        records, _, _ = self.driver.execute_query(query, params, database_=self.database, routing_="r")
        return [record.data() for record in records]

    @retry(
        retry=retry_if_exception_type(_RETRYABLE),
        stop=stop_after_attempt(8),
        wait=wait_random_exponential(multiplier=0.05, max=2),
        reraise=True,
    )
    def write(self, work, *args):
        """Run ``work(tx, *args)`` in one transaction, retried whole on conflicts."""
        with self.driver.session(database=self.database) as session:
            return session.execute_write(work, *args)

    def ensure_schema(self) -> None:
        for statement in SCHEMA:
            self.driver.execute_query(statement, database_=self.database)

    # -- writes -------------------------------------------------------------------------
    def upsert(
        self,
        entities: Iterable[EntityRecord] = (),
        evidence: Iterable[EvidenceRecord] = (),
        relations: Iterable[RelationRecord] = (),
        supports: Iterable[tuple[str, str]] = (),
    ) -> WriteSummary:
        """Write one logical unit in one transaction; relation endpoints are created if missing."""
        entities, evidence, relations = list(entities), list(evidence), list(relations)
        by_key = {e.key: e for e in entities}
        endpoints = {}
        for rel in relations:
            for key, name in ((rel.source_key, rel.source), (rel.target_key, rel.target)):
                if key not in by_key:
                    endpoints.setdefault(key, name)
        supports = [(normalize_key(k), v) for k, v in supports]
        return self.write(_write_unit, list(by_key.values()), endpoints, evidence, relations, supports)

    def delete_by_origin(self, origin: str) -> int:
        query = "MATCH ()-[r:RELATES {origin: $origin}]->() DELETE r RETURN count(*) AS n"
        return self.write(lambda tx: tx.run(query, origin=origin).single()["n"])

    def touch(self, keys: list[str], field_name: str) -> None:
        """Set ``refreshed_at`` to now, or add one to ``hits`` (question traffic)."""
        if field_name == "refreshed_at":
            query = "UNWIND $keys AS k MATCH (e:Entity {key: k}) SET e.refreshed_at = $now"
        elif field_name == "hits":
            query = "UNWIND $keys AS k MATCH (e:Entity {key: k}) SET e.hits = coalesce(e.hits, 0) + 1"
        else:
            raise ValueError(f"cannot touch {field_name!r}")
        self.write(lambda tx: tx.run(query, keys=keys, now=utc_now()).consume())

    # -- reads --------------------------------------------------------------------------
    def get_entity(self, name: str) -> dict | None:
        """Entity by normalised key, else by alias (first match), else None."""
        key = normalize_key(name)
        rows = self.read("MATCH (e:Entity {key: $key}) RETURN properties(e) AS e", key=key)
        if not rows:
            rows = self.read(
                "MATCH (:Alias {key: $key})-[:ALIAS_OF]->(e:Entity) RETURN properties(e) AS e "
                "ORDER BY e.key LIMIT 1",
                key=key,
            )
        return rows[0]["e"] if rows else None

    def neighbors(self, keys: list[str], min_confidence: float = 0.0, per_node: int = 50) -> list[dict]:
        """Edges touching ``keys`` in both directions, strongest first, at most ``per_node`` each."""
        return self.read(
            """UNWIND $keys AS k MATCH (e:Entity {key: k})-[r:RELATES]-(n:Entity)
               WHERE r.confidence >= $min
               WITH k, e, r, n ORDER BY r.confidence DESC
               WITH k, collect({other: n.key, name: n.name, type: n.type, rel: r.type, confidence: r.confidence,
                                evidence_ids: r.evidence_ids, forward: startNode(r) = e})[0..$per] AS hits
               UNWIND hits AS h
               RETURN k AS key, h.other AS other, h.name AS name, h.type AS type, h.rel AS rel,
                      h.confidence AS confidence, h.evidence_ids AS evidence_ids, h.forward AS forward""",
            keys=keys, min=min_confidence, per=per_node,
        )  # fmt: skip

    def entities(self, keys: list[str]) -> dict[str, dict]:
        rows = self.read("UNWIND $keys AS k MATCH (e:Entity {key: k}) RETURN k, properties(e) AS e", keys=keys)
        return {row["k"]: row["e"] for row in rows}

    def evidence(self, ids: list[str]) -> list[dict]:
        rows = self.read("UNWIND $ids AS i MATCH (v:Evidence {id: i}) RETURN properties(v) AS v", ids=ids)
        return [row["v"] for row in rows]

    def gap_check(self, keys: list[str], tau: float, stale_before: str, min_relations: int) -> list[GapReport]:
        """Classify each key: missing, stale (refreshed before ``stale_before``), thin, or ok."""
        rows = self.read(
            """UNWIND $keys AS k OPTIONAL MATCH (e:Entity {key: k})
               RETURN k, e.refreshed_at AS refreshed,
                      CASE WHEN e IS NULL THEN 0
                           ELSE COUNT { (e)-[r:RELATES]-() WHERE r.confidence >= $tau } END AS strong""",
            keys=keys, tau=tau,
        )  # fmt: skip
        reports = []
        for row in rows:
            if row["refreshed"] is None:
                status = "missing"
            elif row["refreshed"] < stale_before:
                status = "stale"
            elif row["strong"] < min_relations:
                status = "thin"
            else:
                status = "ok"
            reports.append(GapReport(row["k"], status, row["strong"], row["refreshed"]))
        return reports

    def relation_history(self, key: str) -> list[dict]:
        return self.read(
            """MATCH (e:Entity {key: $key})-[r:RELATES]-(n:Entity)
               RETURN startNode(r).name AS source, r.type AS type, endNode(r).name AS target,
                      r.confidence AS confidence, r.status AS status, r.history AS history
               ORDER BY r.updated_at DESC""",
            key=key,
        )

    def stats(self) -> dict:
        counts = self.read(
            "CALL { MATCH (e:Entity) RETURN count(e) AS entities } "
            "CALL { MATCH ()-[r:RELATES]->() RETURN count(r) AS relations } "
            "CALL { MATCH (v:Evidence) RETURN count(v) AS evidence } "
            "RETURN entities, relations, evidence"
        )[0]
        by_type = self.read("MATCH (e:Entity) RETURN e.type AS type, count(*) AS n ORDER BY n DESC")
        counts["entity_types"] = {row["type"]: row["n"] for row in by_type}
        return counts


def _write_unit(tx: ManagedTransaction, entities, endpoints, evidence, relations, supports) -> WriteSummary:
    """Explicit entities are upserted in full; relation endpoints are only created if missing."""
    now = utc_now()
    summary = WriteSummary(keys=[e.key for e in entities] + list(endpoints))
    rows = [
        {"key": e.key, "name": e.name, "type": e.type, "description": e.description,
         "description_confidence": e.description_confidence or 0.0, "aliases": e.aliases, "sources": e.sources}
        for e in entities
    ]  # fmt: skip
    alias_rows = [{"entity": e.key, "key": normalize_key(a), "name": a} for e in entities for a in e.aliases]
    for start in range(0, len(rows), BATCH):
        tx.run(_UPSERT_ENTITIES, rows=rows[start : start + BATCH], now=now).consume()
    ends = [{"key": k, "name": n} for k, n in endpoints.items()]
    for start in range(0, len(ends), BATCH):
        tx.run(_ENSURE_ENTITIES, rows=ends[start : start + BATCH], now=now).consume()
    for start in range(0, len(alias_rows), BATCH):
        tx.run(_UPSERT_ALIASES, rows=alias_rows[start : start + BATCH]).consume()
    ev_rows = [v.as_props() for v in evidence]
    for start in range(0, len(ev_rows), BATCH):
        tx.run(_UPSERT_EVIDENCE, rows=ev_rows[start : start + BATCH]).consume()
    sup_rows = [{"entity": k, "evidence": v} for k, v in supports]
    for start in range(0, len(sup_rows), BATCH):
        tx.run(_SUPPORTS, rows=sup_rows[start : start + BATCH]).consume()
    for start in range(0, len(relations), BATCH):
        written, unchanged = _write_relations(tx, relations[start : start + BATCH], now)
        summary.relations_written += written
        summary.relations_unchanged += unchanged
    summary.entities, summary.evidence = len(rows), len(ev_rows)
    return summary


def _write_relations(tx: ManagedTransaction, relations: list[RelationRecord], now: str) -> tuple[int, int]:
    keys = [{"s": r.source_key, "t": r.target_key, "type": r.type} for r in relations]
    existing = {(x["s"], x["t"], x["type"]): x["props"] for x in tx.run(_EXISTING_RELATIONS, rows=keys).data()}
    merged: dict[tuple, dict] = {}
    for rel in relations:
        ident = (rel.source_key, rel.target_key, rel.type)
        props = merge_relation(merged.get(ident) or existing.get(ident), rel, now)
        if props is not None:
            merged[ident] = props
    # checked and written in the same transaction: a concurrent writer of the same edge
    # conflicts on the endpoints and is retried, then finds the edge and updates it
    new = [{"s": s, "t": t, "type": ty, "props": p} for (s, t, ty), p in merged.items() if (s, t, ty) not in existing]
    old = [{"s": s, "t": t, "type": ty, "props": p} for (s, t, ty), p in merged.items() if (s, t, ty) in existing]
    if new:
        tx.run(_CREATE_RELATIONS, rows=new).consume()
    if old:
        tx.run(_UPDATE_RELATIONS, rows=old).consume()
    return len(new) + len(old), len(relations) - len(new) - len(old)


def merge_relation(existing: dict | None, new: RelationRecord, now: str) -> dict | None:
    """New properties for a relation, or None when the assessment changes nothing.

    Evidence accumulates. The confidence of the assessment backed by more distinct
    evidence wins (ties: the newer one). Every change is appended to ``history``.
    """
    event = {
        "at": now, "confidence": new.confidence, "score_raw": new.score_raw,
        "evidence_ids": sorted(set(new.evidence_ids)), "origin": new.origin, "model": new.model,
    }  # fmt: skip
    if existing is None:
        return {
            "type": new.type, "confidence": new.confidence, "score_raw": new.score_raw,
            "description": new.description, "evidence_ids": event["evidence_ids"], "origin": new.origin,
            "model": new.model, "status": "active", "created_at": now, "updated_at": now,
            "history": [json.dumps({**event, "event": "created"})],
        }  # fmt: skip
    old_ids = set(existing.get("evidence_ids") or [])
    new_ids = set(new.evidence_ids)
    if new_ids <= old_ids and abs(existing.get("confidence", 0) - new.confidence) < 1e-9:
        return None
    take_new = len(new_ids) >= len(old_ids)
    confidence = new.confidence if take_new else existing["confidence"]
    history = list(existing.get("history") or [])
    history.append(json.dumps({**event, "event": "reassessed", "previous": existing.get("confidence"),
                               "kept": "new" if take_new else "previous"}))  # fmt: skip
    props = dict(existing)
    props.update(
        confidence=confidence, evidence_ids=sorted(old_ids | new_ids), updated_at=now, history=history,
        status="active",
    )  # fmt: skip
    if take_new:
        props.update(score_raw=new.score_raw, description=new.description or existing.get("description", ""),
                     model=new.model or existing.get("model", ""))  # fmt: skip
    return props
