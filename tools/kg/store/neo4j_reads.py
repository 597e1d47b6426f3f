"""The graph store's knowledge reads over Bolt: entities, edges, evidence, gaps, annotations, links.
Part of ``Neo4jStore`` (mixed into it), apart from its writes so each file stays readable."""

from __future__ import annotations

from typing import cast

from amg.tools.kg.records import EntityProps, EvidenceProps, GapReport
from amg.tools.kg.schema import normalize_key
from amg.tools.kg.store.bolt_access import BoltAccess
from amg.tools.kg.store.rows import (
    Annotation,
    CreatedEntity,
    Edge,
    EntityRef,
    FindingEdge,
    GraphStats,
    LookupHit,
    RelationHistory,
)

HPO_ORIGIN = "vocabulary:hpo"  # disease-phenotype annotations whose confidence encodes a frequency
DDXPLUS_ORIGIN = "vocabulary:ddxplus"  # the DDXPlus pathologies' evidences (tools/records/ddxplus_records.py)
ANNOTATION_ORIGINS = [HPO_ORIGIN, DDXPLUS_ORIGIN]  # what a differential reads as p(finding | disease)
# after "WITH k, e, r ORDER BY ... DESC": the first $per edges of each key, in the shape every edge read returns
_STRONGEST_EDGES = """
               WITH k, e, collect(r)[0..$per] AS rels
               UNWIND rels AS r
               WITH k, r, startNode(r) = e AS forward
               WITH k, r, forward, CASE WHEN forward THEN endNode(r) ELSE startNode(r) END AS n
               RETURN k AS key, n.key AS other, n.name AS name, n.type AS type, r.type AS rel,
                      r.confidence AS confidence, r.evidence_ids AS evidence_ids, forward,
                      r.description AS description"""


class KnowledgeQueries(BoltAccess):
    """Mixed into ``Neo4jStore``, which implements ``read`` and ``write`` (bolt_access.py)."""

    def get_entity(self, name: str) -> EntityProps | None:
        """Entity by normalised key, else by alias (first match), else None."""
        key = normalize_key(name)
        rows = self.read("MATCH (e:Entity {key: $key}) RETURN properties(e) AS e", key=key)
        if not rows:
            rows = self.read(
                "MATCH (:Alias {key: $key})-[:ALIAS_OF]->(e:Entity) RETURN properties(e) AS e ORDER BY e.key LIMIT 1",
                key=key,
            )
        return cast(EntityProps, rows[0]["e"]) if rows else None

    def neighbors(
        self,
        keys: list[str],
        min_confidence: float | dict[str, float] = 0.0,
        *,
        per_node: int = 50,
        max_degree: int | None = None,
    ) -> list[Edge]:
        """Edges touching ``keys`` in both directions, strongest first, at most ``per_node`` each.

        ``min_confidence`` is one floor for all keys or a floor per key. Nodes with more than
        ``max_degree`` relations (hubs) are skipped; their degree is read without touching edges.
        """
        rows = self.read(
            """UNWIND $rows AS row MATCH (e:Entity {key: row.k})
               WHERE $hub IS NULL OR COUNT { (e)-[:RELATES]-() } <= $hub
               MATCH (e)-[r:RELATES]-()
               WHERE r.confidence >= row.min
               WITH row.k AS k, e, r, r.confidence AS c ORDER BY c DESC
"""
            + _STRONGEST_EDGES,
            rows=[
                {"k": k, "min": min_confidence.get(k, 0.0) if isinstance(min_confidence, dict) else min_confidence}
                for k in keys
            ],
            per=per_node,
            hub=max_degree,
        )
        return cast(list[Edge], rows)

    def findings(self, keys: list[str], types: list[str], min_confidence: float) -> list[FindingEdge]:
        """Edges of ``types`` (a study's findings) touching ``keys``, in the shape of ``neighbors``, all of them:
        they are read beside the confidence-ordered neighbour budget, which curated 1.00 edges fill first."""
        rows = self.read(
            """UNWIND $keys AS k MATCH (e:Entity {key: k})-[r:RELATES]-(n:Entity)
               WHERE r.type IN $types AND r.confidence >= $min
               RETURN k AS key, n.key AS other, n.name AS name, n.type AS type, r.type AS rel,
                      r.confidence AS confidence, r.evidence_ids AS evidence_ids, startNode(r) = e AS forward,
                      r.description AS description, coalesce(r.quotes, []) AS quotes
               ORDER BY r.confidence DESC""",
            keys=keys,
            types=types,
            min=min_confidence,
        )
        return cast(list[FindingEdge], rows)

    def learned(
        self, keys: list[str], exclude_types: list[str], *, min_confidence: float, per_node: int = 50
    ) -> list[Edge]:
        """Edges touching ``keys`` that a model read from evidence (not a vocabulary's), but ``exclude_types``, in the
        shape of ``neighbors``, the strongest ``per_node`` each: curated edges (0.8-1.00) fill the confidence-ordered
        neighbour budget before any of them."""
        rows = self.read(
            """UNWIND $keys AS k MATCH (e:Entity {key: k})-[r:RELATES]-(:Entity)
               WHERE NOT r.origin STARTS WITH 'vocabulary' AND NOT r.type IN $exclude AND r.confidence >= $min
               WITH k, e, r ORDER BY r.confidence DESC
"""
            + _STRONGEST_EDGES,
            keys=keys,
            exclude=exclude_types,
            min=min_confidence,
            per=per_node,
        )
        return cast(list[Edge], rows)

    def every_finding(self, types: list[str]) -> list[FindingEdge]:
        """Every edge of ``types`` (a study's findings), in the shape of ``findings`` with the subject as ``key``
        and its name as ``subject``: the question's words are matched against what each finding states. The
        pattern names no label (RELATES joins entities only) so that the type index is used: with labels, ArcadeDB
        scans every edge (0.8 s a question on the seeded graph, 0.001 s by the index)."""
        rows = self.read(
            """MATCH (s)-[r:RELATES]->(n) WHERE r.type IN $types
               RETURN s.key AS key, s.name AS subject, n.key AS other, n.name AS name, n.type AS type,
                      r.type AS rel, r.confidence AS confidence, r.evidence_ids AS evidence_ids, true AS forward,
                      r.description AS description, coalesce(r.quotes, []) AS quotes""",
            types=types,
        )
        return cast(list[FindingEdge], rows)

    def papers_read(self, keys: list[str], limit: int) -> list[EvidenceProps]:
        """The papers (Evidence properties) read for ``keys``, by the ``SUPPORTED_BY`` edge each online write adds
        from the entity it was read for, whether or not a relation was kept from them; withdrawn ones left out,
        at most ``limit``, newest read first."""
        return [
            cast(EvidenceProps, row["v"])
            for row in self.read(
                """UNWIND $keys AS k MATCH (:Entity {key: k})-[:SUPPORTED_BY]->(v:Evidence)
                   WHERE v.kind = 'pubmed' AND v.status IS NULL
                   WITH DISTINCT v ORDER BY v.retrieved_at DESC LIMIT $n
                   RETURN properties(v) AS v""",
                keys=keys,
                n=limit,
            )
        ]

    def entities(self, keys: list[str]) -> dict[str, EntityProps]:
        rows = self.read("UNWIND $keys AS k MATCH (e:Entity {key: k}) RETURN k, properties(e) AS e", keys=keys)
        return {row["k"]: cast(EntityProps, row["e"]) for row in rows}

    def evidence(self, ids: list[str]) -> list[EvidenceProps]:
        rows = self.read("UNWIND $ids AS i MATCH (v:Evidence {id: i}) RETURN properties(v) AS v", ids=ids)
        return [cast(EvidenceProps, row["v"]) for row in rows]

    def gap_check(self, keys: list[str], tau: float, *, stale_before: str, min_relations: int) -> list[GapReport]:
        """Classify each key: missing, stale (refreshed before ``stale_before``), thin, or ok.

        Thin counts evidence-backed relations only: curated vocabulary edges give structure
        (is_a, annotations) but say nothing about treatment, causes or risks.
        """
        rows = self.read(
            """UNWIND $keys AS k OPTIONAL MATCH (e:Entity {key: k})
               RETURN k, e.refreshed_at AS refreshed,
                      CASE WHEN e IS NULL THEN 0
                           ELSE COUNT { (e)-[r:RELATES]-()
                                        WHERE r.confidence >= $tau AND NOT r.origin STARTS WITH 'vocabulary' }
                      END AS strong""",
            keys=keys,
            tau=tau,
        )
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
            reports.append(GapReport(row["k"], status, strong_relations=row["strong"], refreshed_at=row["refreshed"]))
        return reports

    def relation_history(self, key: str) -> list[RelationHistory]:
        rows = self.read(
            """MATCH (e:Entity {key: $key})-[r:RELATES]-(n:Entity)
               RETURN startNode(r).name AS source, r.type AS type, endNode(r).name AS target,
                      r.confidence AS confidence, r.status AS status, r.history AS history
               ORDER BY r.updated_at DESC""",
            key=key,
        )
        return cast(list[RelationHistory], rows)

    def stats(self) -> GraphStats:
        counts = self.read(
            "CALL { MATCH (e:Entity) RETURN count(e) AS entities } "
            "CALL { MATCH ()-[r:RELATES]->() RETURN count(r) AS relations } "
            "CALL { MATCH (v:Evidence) RETURN count(v) AS evidence } "
            "RETURN entities, relations, evidence"
        )[0]
        by_type = self.read("MATCH (e:Entity) RETURN e.type AS type, count(*) AS n ORDER BY n DESC")
        by_source = self.read(
            "MATCH (e:Entity) UNWIND coalesce(e.sources, []) AS s RETURN s, count(*) AS n ORDER BY n DESC"
        )
        by_origin = self.read("MATCH ()-[r:RELATES]->() RETURN r.origin AS o, count(*) AS n ORDER BY n DESC")
        return GraphStats(
            entities=counts["entities"],
            relations=counts["relations"],
            evidence=counts["evidence"],
            entity_types={row["type"]: row["n"] for row in by_type},
            entities_by_source={row["s"]: row["n"] for row in by_source},
            relations_by_origin={row["o"]: row["n"] for row in by_origin},
        )

    def disease_annotations(self, findings: dict[str, list[str]], limit: int) -> list[Annotation]:
        """Disease annotations (HPO's, DDXPlus's) of the ``limit`` diseases sharing most of the ``findings``
        ({finding: the keys that stand for it, itself and its finer terms}): every finding of each. A finding counts
        once however many of its finer terms a disease has (or a disease with five kinds of seizure outranks one that
        has all the findings)."""
        pairs = [{"finding": f, "key": k} for f, keys in findings.items() for k in keys]
        rows = self.read(
            """UNWIND $pairs AS p
               MATCH (:Entity {key: p.key})-[a:RELATES {type: 'symptom_of'}]->(d:Entity) WHERE a.origin IN $origins
               WITH d, count(DISTINCT p.finding) AS shared ORDER BY shared DESC, d.key LIMIT $n
               MATCH (f:Entity)-[r:RELATES {type: 'symptom_of'}]->(d) WHERE r.origin IN $origins
               RETURN d.key AS disease, d.name AS name, f.key AS finding, f.name AS finding_name,
                      r.confidence AS confidence, r.evidence_ids AS evidence_ids""",
            pairs=pairs,
            n=limit,
            origins=ANNOTATION_ORIGINS,
        )
        return cast(list[Annotation], rows)

    def parents(self, keys: list[str]) -> dict[str, list[EntityRef]]:
        """Per key: the entities it is_a (key, name, type)."""
        rows = self.read(
            """UNWIND $keys AS k MATCH (:Entity {key: k})-[:RELATES {type: 'is_a'}]->(p:Entity)
                            RETURN k, p.key AS key, p.name AS name, p.type AS type ORDER BY k, key""",
            keys=keys,
        )
        found: dict[str, list[EntityRef]] = {}
        for row in rows:
            found.setdefault(row.pop("k"), []).append(cast(EntityRef, row))
        return found

    def phenotype_annotations(self) -> list[Annotation]:
        """Every HPO disease-phenotype annotation (~280k rows; for the diagnosis benchmark)."""
        rows = self.read(
            """MATCH (f:Entity)-[r:RELATES {type: 'symptom_of', origin: $origin}]->(d:Entity)
               RETURN d.key AS disease, d.name AS name, f.key AS finding, f.name AS finding_name,
                      r.confidence AS confidence""",
            origin=HPO_ORIGIN,
        )
        return cast(list[Annotation], rows)

    def entities_created_after(
        self, after: str, key: str, *, limit: int, include_vocabulary: bool
    ) -> list[CreatedEntity]:
        """Entities created after (``after``, ``key``), oldest first; vocabulary ones only if asked."""
        rows = self.read(
            """MATCH (e:Entity) WHERE (e.created_at > $after OR (e.created_at = $after AND e.key > $key))
                 AND ($all OR size(coalesce(e.sources, [])) = 0
                      OR any(s IN e.sources WHERE NOT s STARTS WITH 'vocabulary'))
               WITH e ORDER BY e.created_at, e.key LIMIT $n
               RETURN e.key AS key, e.name AS name, e.type AS type, e.created_at AS at""",
            after=after,
            key=key,
            n=limit,
            all=include_vocabulary,
        )
        return cast(list[CreatedEntity], rows)

    def lookup(self, keys: list[str]) -> dict[str, list[LookupHit]]:
        """Per key: the entity with that key, else the entities it is an alias of (key, name, type)."""
        rows = self.read(
            """UNWIND $keys AS k
               OPTIONAL MATCH (e:Entity {key: k})
               OPTIONAL MATCH (:Alias {key: k})-[:ALIAS_OF]->(a:Entity)
               WITH k, e, a ORDER BY a.key
               RETURN k, e.key AS ekey, e.name AS ename, e.type AS etype,
                      collect({key: a.key, name: a.name, type: a.type}) AS aliased""",
            keys=keys,
        )
        found: dict[str, list[LookupHit]] = {}
        for row in rows:
            if row["ekey"]:
                found[row["k"]] = [LookupHit(key=row["ekey"], name=row["ename"], type=row["etype"], how="exact")]
            elif hits := [
                LookupHit(key=a["key"], name=a["name"], type=a["type"], how="alias")
                for a in row["aliased"]
                if a.get("key")
            ]:
                found[row["k"]] = hits
        return found
