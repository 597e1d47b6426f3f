"""The Neo4j store's bookkeeping: build marks, refresh claims and candidates, seeding progress,
and the audit's reads and marks. Part of ``Neo4jStore`` (mixed into it), apart from the
knowledge reads and writes so each file stays readable."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import cast

from neo4j import ManagedTransaction

from amg.tools.kg.records import iso_utc, utc_now
from amg.tools.kg.schema import LEARNED_DESCRIPTION_CAP
from amg.tools.kg.store.bolt_access import BoltAccess
from amg.tools.kg.store.rows import ConfidenceCount, ExtractedRelation, LearnedDescription, RefreshCandidate


class BookkeepingQueries(BoltAccess):
    """Mixed into ``Neo4jStore``, which implements ``read`` and ``write`` (bolt_access.py)."""

    def built_keys(self, keys: list[str]) -> set[str]:
        rows = self.read("UNWIND $keys AS k MATCH (b:BuildItem {key: k}) RETURN b.key AS key", keys=keys)
        return {row["key"] for row in rows}

    def mark_built(self, key: str, relations: int) -> None:
        query = "MERGE (b:BuildItem {key: $key}) SET b.done_at = $now, b.relations = $n"
        self.write(lambda tx: tx.run(query, key=key, now=utc_now(), n=relations).consume())

    def refresh_candidates(self, stale_before: str, tau: float, limit: int) -> list[RefreshCandidate]:
        """Stale entities that were asked about or learned online, then entities with relations near tau."""
        stale = self.read(
            """MATCH (e:Entity) WHERE e.refreshed_at < $stale
                 AND (coalesce(e.hits, 0) > 0 OR any(s IN coalesce(e.sources, []) WHERE NOT s STARTS WITH 'vocabulary'))
               RETURN e.key AS key, e.name AS name, e.type AS type, e.refreshed_at AS since, 'stale' AS why
               ORDER BY coalesce(e.hits, 0) DESC, e.refreshed_at LIMIT $n""",
            stale=stale_before,
            n=limit,
        )
        borderline = self.read(
            """MATCH (a:Entity)-[r:RELATES]->(:Entity)
               WHERE abs(r.confidence - $tau) <= 0.1 AND NOT r.origin STARTS WITH 'vocabulary'
               RETURN DISTINCT a.key AS key, a.name AS name, a.type AS type, a.refreshed_at AS since, 'near tau' AS why
               LIMIT $n""",
            tau=tau,
            n=limit,
        )
        return cast(list[RefreshCandidate], stale + borderline)

    def claim(self, key: str, owner: str, minutes: int) -> bool:
        """Lock an entity for ``owner``, unless another owner holds a lock younger than ``minutes``."""
        expired = iso_utc(datetime.now(UTC) - timedelta(minutes=minutes))
        query = """MATCH (e:Entity {key: $key}) WHERE e.refresh_lock IS NULL OR e.refresh_lock < $expired
                   SET e.refresh_lock = $now, e.refresh_owner = $me RETURN e.key AS key"""
        return bool(self.write(lambda tx: tx.run(query, key=key, expired=expired, now=utc_now(), me=owner).data()))

    def release(self, key: str, owner: str) -> None:
        query = "MATCH (e:Entity {key: $key}) WHERE e.refresh_owner = $me REMOVE e.refresh_lock, e.refresh_owner"
        self.write(lambda tx: tx.run(query, key=key, me=owner).consume())

    def seed_state(self, origin: str) -> tuple[set[int], bool]:
        """Chunks of a vocabulary already written, and whether it is complete."""
        rows = self.read(
            "MATCH (s:SeedState {origin: $origin}) RETURN s.done AS done, s.complete AS complete", origin=origin
        )
        return (set(rows[0]["done"] or []), bool(rows[0]["complete"])) if rows else (set(), False)

    def save_seed_state(self, origin: str, done: set[int], complete: bool = False) -> None:
        query = "MERGE (s:SeedState {origin: $origin}) SET s.done = $done, s.complete = $complete"
        self.write(lambda tx: tx.run(query, origin=origin, done=sorted(done), complete=complete).consume())

    # -- audit --------------------------------------------------------------------------
    def confidence_profile(self) -> list[ConfidenceCount]:
        """Relations counted per origin, model and confidence tenth."""
        rows = self.read(
            """MATCH ()-[r:RELATES]->()
               RETURN r.origin AS origin, coalesce(r.model, '') AS model, coalesce(r.status, 'active') AS status,
                      toInteger(floor(r.confidence * 10)) AS tenth, count(*) AS n,
                      sum(r.confidence) AS total
               ORDER BY origin, model, tenth"""
        )
        return cast(list[ConfidenceCount], rows)

    def extracted_relations(self, skip: int, limit: int) -> list[ExtractedRelation]:
        """A page of model-written relations (not curated), with their endpoints' names and aliases."""
        rows = self.read(
            """MATCH (a:Entity)-[r:RELATES]->(b:Entity)
               WHERE NOT r.origin STARTS WITH 'vocabulary' AND coalesce(r.status, 'active') <> 'weakened'
               WITH a, r, b ORDER BY a.key, b.key, r.type SKIP $skip LIMIT $n
               RETURN a.key AS s, b.key AS t, r.type AS type, a.name AS source, b.name AS target,
                      a.type AS source_type, b.type AS target_type,
                      coalesce(a.aliases, []) AS source_aliases, coalesce(b.aliases, []) AS target_aliases,
                      coalesce(r.evidence_ids, []) AS evidence_ids, r.confidence AS confidence, r.model AS model,
                      r.description AS sentence""",
            skip=skip,
            n=limit,
        )
        return cast(list[ExtractedRelation], rows)

    def learned_descriptions(self, skip: int, limit: int) -> list[LearnedDescription]:
        """A page of descriptions written by a model (curated ones have a higher confidence than any model's)."""
        rows = self.read(
            """MATCH (e:Entity) WHERE e.description IS NOT NULL AND e.description_confidence <= $cap
                 AND coalesce(e.description_status, 'active') <> 'weakened'
               WITH e ORDER BY e.key SKIP $skip LIMIT $n
               RETURN e.key AS key, e.name AS name, e.description AS description""",
            skip=skip,
            n=limit,
            cap=LEARNED_DESCRIPTION_CAP,
        )
        return cast(list[LearnedDescription], rows)

    def weaken(self, relations: Sequence[Mapping[str, object]], descriptions: list[str], reason: str) -> None:
        """Mark relations ({s, t, type}) and descriptions (entity keys) weakened: confidence 0, history kept."""
        now = utc_now()
        description_query = """UNWIND $keys AS k MATCH (e:Entity {key: k})
                               SET e.description_status = 'weakened', e.description_confidence = 0.0,
                                   e.description_note = $reason"""

        def work(tx: ManagedTransaction) -> None:
            weaken_relations(tx, relations, reason=reason, event="audit", now=now)
            tx.run(description_query, keys=descriptions, reason=reason).consume()

        self.write(work)


WEAKEN_RELATIONS = """UNWIND $rows AS row MATCH (a:Entity {key: row.s}), (b:Entity {key: row.t})
                      MATCH (a)-[r:RELATES {type: row.type}]->(b)
                      SET r.status = 'weakened', r.confidence = 0.0, r.updated_at = $now,
                          r.history = coalesce(r.history, []) + [row.event]"""


def weaken_relations(
    tx: ManagedTransaction, relations: Sequence[Mapping[str, object]], *, reason: str, event: str, now: str
) -> None:
    """Within ``tx``: relations ({s, t, type, confidence, evidence_ids, reason?}) weakened to confidence 0, the
    change (``event``: audit, retracted, deleted, reread) and its reason appended to each one's history."""
    rows = [
        {
            **r,
            "event": json.dumps(
                {
                    "at": now,
                    "event": event,
                    "reason": r.get("reason", reason),
                    "previous": r.get("confidence"),
                    "confidence": 0.0,
                    "evidence_ids": r.get("evidence_ids", []),
                    "origin": "audit" if event == "audit" else "pubmed",
                }
            ),
        }
        for r in relations
    ]
    if rows:
        tx.run(WEAKEN_RELATIONS, rows=rows, now=now).consume()
