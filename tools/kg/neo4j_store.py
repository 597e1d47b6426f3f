"""The graph store over the official neo4j driver (Neo4j 5, or the embedded ArcadeDB over Bolt).

Every statement is parameterised; labels and relationship types are fixed strings.
One logical write (entities + evidence + relations) is one transaction, retried as a
whole on transient and constraint conflicts (concurrent writers MERGE-ing one key).
"""

from __future__ import annotations

import json
from typing import Iterable

from neo4j import Driver, ManagedTransaction
from neo4j.exceptions import (
    ConstraintError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)
from tenacity import (
    retry,
    retry_if_exception_type,
    stop_after_attempt,
    wait_random_exponential,
)

from amg.tools.kg.bolt_bookkeeping import BookkeepingQueries
from amg.tools.kg.inspection import InspectionQueries
from amg.tools.kg.records import (
    EntityRecord,
    EvidenceRecord,
    GapReport,
    RelationRecord,
    utc_now,
)
from amg.tools.kg.schema import normalize_key, score_to_confidence
from amg.tools.kg.writes import (
    EXISTING_RELATIONS,
    UPDATE_RELATIONS,
    WriteSummary,
    write_unit,
)

SCHEMA = (
    "CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (e:Entity) REQUIRE e.key IS UNIQUE",
    "CREATE CONSTRAINT evidence_id IF NOT EXISTS FOR (v:Evidence) REQUIRE v.id IS UNIQUE",
    "CREATE CONSTRAINT alias_key IF NOT EXISTS FOR (a:Alias) REQUIRE a.key IS UNIQUE",
    "CREATE INDEX entity_type IF NOT EXISTS FOR (e:Entity) ON (e.type)",
    "CREATE INDEX entity_refreshed IF NOT EXISTS FOR (e:Entity) ON (e.refreshed_at)",
    "CREATE INDEX entity_created IF NOT EXISTS FOR (e:Entity) ON (e.created_at)",
)
HPO_ORIGIN = "vocabulary:hpo"  # disease-phenotype annotations whose confidence encodes a frequency
_RETRYABLE = (ConstraintError, TransientError, ServiceUnavailable, SessionExpired)


class Neo4jGraphStore(BookkeepingQueries, InspectionQueries):
    """The ``GraphStore`` contract (tools/kg/store.py) over the neo4j driver."""

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
        return self.write(write_unit, list(by_key.values()), endpoints, evidence, relations, supports)

    def delete_by_origin(self, origin: str) -> int:
        query = "MATCH ()-[r:RELATES {origin: $origin}]->() DELETE r RETURN count(*) AS n"
        return self.write(lambda tx: tx.run(query, origin=origin).single()["n"])

    def mark_weakened(self, items: list[dict], model: str) -> int:
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
                event = {"at": now, "event": "weakened", "previous": props.get("confidence"), "confidence": confidence,
                         "score_raw": item["score"], "evidence_ids": item["evidence_ids"], "origin": "refresh",
                         "model": model}  # fmt: skip
                update = {"confidence": confidence, "status": "weakened", "updated_at": now,
                          "history": list(props.get("history") or []) + [json.dumps(event)]}  # fmt: skip
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

    def neighbors(
        self, keys: list[str], min_confidence: float | dict[str, float] = 0.0, per_node: int = 50,
        max_degree: int | None = None,
    ) -> list[dict]:  # fmt: skip
        """Edges touching ``keys`` in both directions, strongest first, at most ``per_node`` each.

        ``min_confidence`` is one floor for all keys or a floor per key. Nodes with more than
        ``max_degree`` relations (hubs) are skipped; their degree is read without touching edges.
        """
        return self.read(
            """UNWIND $rows AS row MATCH (e:Entity {key: row.k})
               WHERE $hub IS NULL OR COUNT { (e)-[:RELATES]-() } <= $hub
               MATCH (e)-[r:RELATES]-()
               WHERE r.confidence >= row.min
               WITH row.k AS k, e, r, r.confidence AS c ORDER BY c DESC
               WITH k, e, collect(r)[0..$per] AS rels
               UNWIND rels AS r
               WITH k, r, startNode(r) = e AS forward
               WITH k, r, forward, CASE WHEN forward THEN endNode(r) ELSE startNode(r) END AS n
               RETURN k AS key, n.key AS other, n.name AS name, n.type AS type, r.type AS rel,
                      r.confidence AS confidence, r.evidence_ids AS evidence_ids, forward,
                      r.description AS description""",
            rows=[{"k": k, "min": min_confidence.get(k, 0.0) if isinstance(min_confidence, dict) else min_confidence}
                  for k in keys],
            per=per_node, hub=max_degree,
        )  # fmt: skip

    def entities(self, keys: list[str]) -> dict[str, dict]:
        rows = self.read("UNWIND $keys AS k MATCH (e:Entity {key: k}) RETURN k, properties(e) AS e", keys=keys)
        return {row["k"]: row["e"] for row in rows}

    def evidence(self, ids: list[str]) -> list[dict]:
        rows = self.read("UNWIND $ids AS i MATCH (v:Evidence {id: i}) RETURN properties(v) AS v", ids=ids)
        return [row["v"] for row in rows]

    def gap_check(self, keys: list[str], tau: float, stale_before: str, min_relations: int) -> list[GapReport]:
        """Classify each key: missing, stale (refreshed before ``stale_before``), thin, or ok.

        Thin counts evidence-backed relations only: curated vocabulary edges give structure
        (is_a, annotations) but say nothing about treatment, causes or risks.
        """
        rows = self.read(
            """UNWIND $keys AS k OPTIONAL MATCH (e:Entity {key: k})
               RETURN k, e.refreshed_at AS refreshed,
                      CASE WHEN e IS NULL THEN 0
                           ELSE COUNT { (e)-[r:RELATES]-() WHERE r.confidence >= $tau
                                                              AND NOT r.origin STARTS WITH 'vocabulary' } END AS strong""",
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
        by_source = self.read("MATCH (e:Entity) UNWIND coalesce(e.sources, []) AS s RETURN s, count(*) AS n ORDER BY n DESC")
        counts["entities_by_source"] = {row["s"]: row["n"] for row in by_source}
        by_origin = self.read("MATCH ()-[r:RELATES]->() RETURN r.origin AS o, count(*) AS n ORDER BY n DESC")
        counts["relations_by_origin"] = {row["o"]: row["n"] for row in by_origin}
        return counts

    def disease_annotations(self, finding_keys: list[str], limit: int) -> list[dict]:
        """HPO annotations of the ``limit`` diseases sharing most of ``finding_keys``: every finding of each."""
        return self.read(
            """UNWIND $keys AS k MATCH (:Entity {key: k})-[:RELATES {type: 'symptom_of', origin: $origin}]->(d:Entity)
               WITH d, count(*) AS shared ORDER BY shared DESC, d.key LIMIT $n
               MATCH (f:Entity)-[r:RELATES {type: 'symptom_of', origin: $origin}]->(d)
               RETURN d.key AS disease, d.name AS name, f.key AS finding, f.name AS finding_name,
                      r.confidence AS confidence, r.evidence_ids AS evidence_ids""",
            keys=finding_keys, n=limit, origin=HPO_ORIGIN,
        )  # fmt: skip

    def parents(self, keys: list[str]) -> dict[str, list[dict]]:
        """Per key: the entities it is_a (key, name, type)."""
        rows = self.read("""UNWIND $keys AS k MATCH (:Entity {key: k})-[:RELATES {type: 'is_a'}]->(p:Entity)
                            RETURN k, p.key AS key, p.name AS name, p.type AS type ORDER BY k, key""", keys=keys)
        found: dict[str, list[dict]] = {}
        for row in rows:
            found.setdefault(row.pop("k"), []).append(row)
        return found

    def phenotype_annotations(self) -> list[dict]:
        """Every HPO disease-phenotype annotation (~280k rows; for the diagnosis benchmark)."""
        return self.read(
            """MATCH (f:Entity)-[r:RELATES {type: 'symptom_of', origin: $origin}]->(d:Entity)
               RETURN d.key AS disease, d.name AS name, f.key AS finding, f.name AS finding_name,
                      r.confidence AS confidence""",
            origin=HPO_ORIGIN,
        )  # fmt: skip

    # -- linking ------------------------------------------------------------------------
    def entities_created_after(self, after: str, key: str, limit: int, include_vocabulary: bool) -> list[dict]:
        """Entities created after (``after``, ``key``), oldest first; vocabulary ones only if asked."""
        return self.read(
            """MATCH (e:Entity) WHERE (e.created_at > $after OR (e.created_at = $after AND e.key > $key))
                 AND ($all OR size(coalesce(e.sources, [])) = 0
                      OR any(s IN e.sources WHERE NOT s STARTS WITH 'vocabulary'))
               WITH e ORDER BY e.created_at, e.key LIMIT $n
               RETURN e.key AS key, e.name AS name, e.type AS type, e.created_at AS at""",
            after=after, key=key, n=limit, all=include_vocabulary,
        )  # fmt: skip

    def lookup(self, keys: list[str]) -> dict[str, list[dict]]:
        """Per key: the entity with that key, else the entities it is an alias of (key, name, type)."""
        rows = self.read(
            """UNWIND $keys AS k
               OPTIONAL MATCH (e:Entity {key: k})
               OPTIONAL MATCH (:Alias {key: k})-[:ALIAS_OF]->(a:Entity)
               WITH k, e, a ORDER BY a.key
               RETURN k, e.key AS ekey, e.name AS ename, e.type AS etype,
                      collect({key: a.key, name: a.name, type: a.type}) AS aliased""",
            keys=keys,
        )  # fmt: skip
        found = {}
        for row in rows:
            if row["ekey"]:
                found[row["k"]] = [{"key": row["ekey"], "name": row["ename"], "type": row["etype"], "how": "exact"}]
            elif hits := [{**a, "how": "alias"} for a in row["aliased"] if a.get("key")]:
                found[row["k"]] = hits
        return found
