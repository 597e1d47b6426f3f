"""The Neo4j store's record tier: a clinician's patients, private, beside the shared knowledge.

``(:Patient {id})-[:HAS_FINDING {present}]->(:Entity)`` to a vocabulary's finding node where the graph has one, else
to the tier's own ``(:RecordFinding {key})``; ``(:Patient)-[:DIAGNOSED_WITH]->(:Entity)`` for each diagnosis the graph
knows (those it does not stay on the patient as ``diagnosis_names`` / ``diagnosis_ids``). A patient is never an
``Entity`` or an ``Evidence``, and never a ``RELATES`` edge: no traversal, confidence or citation reads it. Part of
``Neo4jStore`` (mixed into it).
"""

from __future__ import annotations

from neo4j import ManagedTransaction

from amg.tools.kg.records import PatientWrite, utc_now
from amg.tools.kg.store.bolt_access import BoltAccess
from amg.tools.kg.store.rows import PatientLink

RECORD_SCHEMA = (
    "CREATE CONSTRAINT patient_id IF NOT EXISTS FOR (p:Patient) REQUIRE p.id IS UNIQUE",
    "CREATE CONSTRAINT record_finding_key IF NOT EXISTS FOR (f:RecordFinding) REQUIRE f.key IS UNIQUE",
)
_FORGET = """UNWIND $ids AS i MATCH (p:Patient {id: i})-[r:HAS_FINDING|DIAGNOSED_WITH]->() DELETE r"""
# one patient looked up once for all its links (a lookup per link was the ingest's main cost)
_PATIENTS = """UNWIND $rows AS row MERGE (p:Patient {id: row.id})
SET p.source = row.source, p.age = row.age, p.sex = row.sex, p.diagnosis_names = row.diagnosis_names,
    p.diagnosis_ids = row.diagnosis_ids, p.ingested_at = $now
WITH p, row UNWIND row.links AS link MATCH (f:Entity {key: link.key})
CREATE (p)-[:HAS_FINDING {present: link.present}]->(f)"""
_OWN_FINDINGS = """UNWIND $edges AS e MATCH (p:Patient {id: e.id}) MERGE (f:RecordFinding {key: e.key})
ON CREATE SET f.name = e.name CREATE (p)-[:HAS_FINDING {present: e.present}]->(f)"""
_DISEASES = """UNWIND $edges AS e MATCH (p:Patient {id: e.id}), (d:Entity {key: e.key})
CREATE (p)-[:DIAGNOSED_WITH]->(d)"""
# a record finding node no patient links to any more is removed with the last patient that named it
_ORPHANS = """UNWIND $keys AS k MATCH (f:RecordFinding {key: k}) WHERE NOT (f)<-[:HAS_FINDING]-() DELETE f"""


class RecordQueries(BoltAccess):
    """Needs ``read(query, **params)`` and ``write(work)`` from the class it is mixed into."""

    def existing_keys(self, keys: list[str]) -> set[str]:
        """Which of ``keys`` are entities of the graph."""
        rows = self.read("UNWIND $keys AS k MATCH (e:Entity {key: k}) RETURN e.key AS key", keys=sorted(set(keys)))
        return {row["key"] for row in rows}

    def write_patients(self, patients: list[PatientWrite]) -> None:
        """Write (or replace: what an earlier ingest linked is unlinked first) these patients in one transaction."""
        if not patients:
            return
        shared = self.existing_keys([f.key for p in patients for f in p.findings])
        rows = [
            {
                "id": p.id,
                "source": p.source,
                "age": p.age,
                "sex": p.sex,
                "diagnosis_names": list(p.diagnosis_names),
                "diagnosis_ids": list(p.diagnosis_ids),
                "links": [{"key": f.key, "present": f.present} for f in p.findings if f.key in shared],
            }
            for p in patients
        ]
        findings = [(p.id, f) for p in patients for f in p.findings]
        own = [
            {"id": i, "key": f.key, "name": f.name, "present": f.present} for i, f in findings if f.key not in shared
        ]
        diseases = [{"id": p.id, "key": key} for p in patients for key in dict.fromkeys(p.diseases)]

        def work(tx: ManagedTransaction) -> None:
            ids = [p.id for p in patients]
            previous = self._own_keys(tx, ids)
            tx.run(_FORGET, ids=ids).consume()
            tx.run(_PATIENTS, rows=rows, now=utc_now()).consume()
            for query, edges in ((_OWN_FINDINGS, own), (_DISEASES, diseases)):
                if edges:
                    tx.run(query, edges=edges).consume()
            tx.run(_ORPHANS, keys=sorted(previous)).consume()

        self.write(work)

    @staticmethod
    def _own_keys(tx: ManagedTransaction, ids: list[str]) -> set[str]:
        query = "UNWIND $ids AS i MATCH (:Patient {id: i})-[:HAS_FINDING]->(f:RecordFinding) RETURN DISTINCT f.key AS k"
        return {row["k"] for row in tx.run(query, ids=ids).data()}

    def delete_patients(self, ids: list[str]) -> int:
        """Remove these patients, their links, and the record finding nodes only they named; how many were there."""

        def work(tx: ManagedTransaction) -> int:
            own = self._own_keys(tx, ids)
            found = tx.run("UNWIND $ids AS i MATCH (p:Patient {id: i}) RETURN count(p) AS n", ids=ids).single()
            tx.run("UNWIND $ids AS i MATCH (p:Patient {id: i}) DETACH DELETE p", ids=ids).consume()
            tx.run(_ORPHANS, keys=sorted(own)).consume()
            return int(found["n"]) if found else 0

        return self.write(work) if ids else 0

    def patient_ids(self) -> set[str]:
        """The ids of the patients the graph holds."""
        return {row["id"] for row in self.read("MATCH (p:Patient) RETURN p.id AS id")}

    def patient_links(self, patient_id: str) -> list[PatientLink]:
        """What one patient links to: [{kind: finding | diagnosis, key, name, present}]."""
        rows = self.read(
            """MATCH (p:Patient {id: $id})-[r:HAS_FINDING|DIAGNOSED_WITH]->(n)
               RETURN CASE type(r) WHEN 'HAS_FINDING' THEN 'finding' ELSE 'diagnosis' END AS kind,
                      n.key AS key, n.name AS name, r.present AS present ORDER BY kind, key""",
            id=patient_id,
        )
        return [PatientLink(kind=r["kind"], key=r["key"], name=r["name"], present=r["present"]) for r in rows]
