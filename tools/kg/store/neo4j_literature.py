"""The Neo4j store's side of the literature kept current (graphs/literature_sync.py): papers PubMed
retracted or deleted are marked on their Evidence node and the relations resting on them weakened (the
audit's mechanism: confidence 0, the reason in their history, nothing deleted); revised papers are queued
for the refresh agent to re-read. Part of ``Neo4jStore`` (mixed into it).

A relation rests on a paper when the paper is among its ``evidence_ids``; it is found through the
``SUPPORTED_BY`` edge every online write adds from the entity it was read for to the paper, so no
statement scans every relation.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import cast

from neo4j import ManagedTransaction

from amg.tools.kg.records import EvidenceFields, EvidenceProps, utc_now
from amg.tools.kg.store.bolt_access import BoltAccess
from amg.tools.kg.store.neo4j_bookkeeping import weaken_relations
from amg.tools.kg.store.rows import RestingRelation, Withdrawal

_RESTING_ON = """
UNWIND $ids AS i
MATCH (:Evidence {id: i})<-[:SUPPORTED_BY]-(:Entity)-[r:RELATES]-(:Entity)
WHERE i IN r.evidence_ids
WITH DISTINCT i, r
WITH i, r, startNode(r) AS a, endNode(r) AS b
RETURN i AS id, a.key AS s, b.key AS t, r.type AS type, a.name AS source, b.name AS target,
       coalesce(a.aliases, []) AS source_aliases, coalesce(b.aliases, []) AS target_aliases,
       r.confidence AS confidence, r.evidence_ids AS evidence_ids, coalesce(r.status, 'active') AS status,
       r.description AS description, r.origin AS origin
ORDER BY s, t, type
"""
_MARK = """
UNWIND $rows AS row MATCH (v:Evidence {id: row.id})
SET v.status = row.status, v.status_note = row.note, v.status_at = $now
REMOVE v.reread_at
"""
_NOTE = """
UNWIND $rows AS row MATCH (a:Entity {key: row.s}), (b:Entity {key: row.t})
MATCH (a)-[r:RELATES {type: row.type}]->(b)
SET r.history = coalesce(r.history, []) + [row.event]
"""


class LiteratureQueries(BoltAccess):
    """Mixed into ``Neo4jStore``, which implements ``read`` and ``write`` (bolt_access.py)."""

    def held_evidence(self, ids: list[str]) -> dict[str, str | None]:
        """Those of ``ids`` the graph holds an Evidence node for -> its status (None: it stands)."""
        rows = self.read("UNWIND $ids AS i MATCH (v:Evidence {id: i}) RETURN v.id AS id, v.status AS status", ids=ids)
        return {row["id"]: row["status"] for row in rows}

    def resting_on(self, ids: list[str]) -> list[RestingRelation]:
        """The relations whose evidence includes one of ``ids`` (``id``: which), with their ends' names."""
        return cast(list[RestingRelation], self.read(_RESTING_ON, ids=ids))

    def withdraw_evidence(self, rows: list[Withdrawal]) -> dict[str, int]:
        """Mark each paper ({id, status: retracted | deleted, note}) and weaken every relation resting on it, in
        one transaction; a paper already marked so is left alone (applying a change twice changes nothing)."""
        now = utc_now()

        def work(tx: ManagedTransaction) -> dict[str, int]:
            ids = [r["id"] for r in rows]
            current = {
                x["id"]: x["status"]
                for x in tx.run(
                    "UNWIND $ids AS i MATCH (v:Evidence {id: i}) RETURN v.id AS id, v.status AS status", ids=ids
                ).data()
            }
            todo = [r for r in rows if r["id"] in current and current[r["id"]] != r["status"]]
            weakened = 0
            for status in ("retracted", "deleted"):
                chosen = {r["id"]: r["note"] for r in todo if r["status"] == status}
                resting = [{**x, "reason": chosen[x["id"]]} for x in tx.run(_RESTING_ON, ids=list(chosen)).data()]
                weaken_relations(tx, resting, reason="", event=status, now=now)
                weakened += len(resting)
            tx.run(_MARK, rows=todo, now=now).consume()
            return {"evidence": len(todo), "relations": weakened}

        return self.write(work) if rows else {"evidence": 0, "relations": 0}

    def queue_reread(self, ids: list[str]) -> int:
        """Queue the papers of ``ids`` that still stand for the refresh agent to re-read (a revision of theirs)."""
        query = """UNWIND $ids AS i MATCH (v:Evidence {id: i}) WHERE v.status IS NULL
                   SET v.reread_at = $now RETURN count(v) AS n"""
        return self.write(lambda tx: tx.run(query, ids=ids, now=utc_now()).single()["n"]) if ids else 0

    def reread_queue(self, limit: int) -> list[EvidenceProps]:
        """The papers waiting to be re-read, longest waiting first (their Evidence properties)."""
        return [
            cast(EvidenceProps, row["v"])
            for row in self.read(
                """MATCH (v:Evidence) WHERE v.reread_at IS NOT NULL
                   RETURN properties(v) AS v ORDER BY v.reread_at LIMIT $n""",
                n=limit,
            )
        ]

    def revise_evidence(self, props: EvidenceFields) -> None:
        """The paper's revised text and metadata on its Evidence node (its id and status unchanged)."""
        query = """MATCH (v:Evidence {id: $id}) SET v.title = $p.title, v.snippet = $p.snippet, v.year = $p.year,
                   v.journal = $p.journal, v.doi = $p.doi, v.revised_at = $now"""
        self.write(lambda tx: tx.run(query, id=props["id"], p=props, now=utc_now()).consume())

    def reread_done(
        self, evidence_id: str, still_stated: Sequence[RestingRelation], gone: Sequence[Mapping[str, object]]
    ) -> None:
        """Close a re-read in one transaction: relations the revision still states get a history note,
        those it no longer states are weakened with the reason, and the paper leaves the queue."""
        now = utc_now()
        notes = [
            {
                **r,
                "event": json.dumps(
                    {
                        "at": now,
                        "event": "reread",
                        "reason": f"{evidence_id} was revised; the revision still states it",
                        "previous": r["confidence"],
                        "confidence": r["confidence"],
                        "evidence_ids": [evidence_id],
                        "origin": "refresh",
                    }
                ),
            }
            for r in still_stated
        ]

        def work(tx: ManagedTransaction) -> None:
            if notes:
                tx.run(_NOTE, rows=notes).consume()
            weaken_relations(
                tx, gone, reason=f"{evidence_id} was revised and no longer states it", event="reread", now=now
            )
            tx.run(
                "MATCH (v:Evidence {id: $id}) REMOVE v.reread_at SET v.reread_done_at = $now", id=evidence_id, now=now
            ).consume()

        self.write(work)

    def literature_cursor(self, index_id: str) -> int:
        """How far into a local index's change journal the graph has heard (0: nothing yet)."""
        rows = self.read("MATCH (c:LiteratureCursor {index: $id}) RETURN c.seq AS seq", id=index_id)
        return int(rows[0]["seq"]) if rows else 0

    def save_literature_cursor(self, index_id: str, seq: int) -> None:
        query = "MERGE (c:LiteratureCursor {index: $id}) SET c.seq = $seq, c.at = $now"
        self.write(lambda tx: tx.run(query, id=index_id, seq=seq, now=utc_now()).consume())
