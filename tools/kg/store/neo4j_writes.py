"""The Neo4j store's write path: statements, one logical write as one transaction, merge policy."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import cast

from neo4j import ManagedTransaction

from amg.tools.batching import chunked
from amg.tools.kg.records import (
    EntityRecord,
    EvidenceRecord,
    Quote,
    RelationProps,
    RelationRecord,
    WriteSummary,
    utc_now,
)
from amg.tools.kg.schema import normalize_key

BATCH = 5000

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
# Statement shapes below are the fast ones on the embedded ArcadeDB (and fine on Neo4j):
# OPTIONAL MATCH + CREATE beats MERGE, one comma MATCH beats two, inline properties beat
# `SET r = map`. A concurrent creator of the same key fails the unique constraint and the
# whole transaction is retried.
_ENSURE_ENTITIES = """
UNWIND $rows AS row
OPTIONAL MATCH (x:Entity {key: row.key})
WITH row WHERE x IS NULL
CREATE (:Entity {key: row.key, name: row.name, type: 'other', created_at: $now, updated_at: $now,
                 refreshed_at: $now, aliases: [], sources: [], description_confidence: 0.0})
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
ON MATCH SET v.url = coalesce(row.url, v.url),
             v.sentences = CASE WHEN row.sentences IS NULL THEN v.sentences
                                ELSE [s IN coalesce(v.sentences, []) WHERE NOT s IN row.sentences] + row.sentences
                           END
"""
_SUPPORTS = """
UNWIND $rows AS row
MATCH (e:Entity {key: row.entity}), (v:Evidence {id: row.evidence})
MERGE (e)-[:SUPPORTED_BY]->(v)
"""
# Both endpoints are bound before the edge is matched, so the server can expand from the
# smaller side: anchoring on one end costs O(degree) on hubs (a phenotype with 2,000 diseases).
EXISTING_RELATIONS = """
UNWIND $rows AS row
MATCH (a:Entity {key: row.s}), (b:Entity {key: row.t})
MATCH (a)-[r:RELATES {type: row.type}]->(b)
RETURN row.s AS s, row.t AS t, row.type AS type, properties(r) AS props
"""
_CREATE_RELATIONS = """
UNWIND $rows AS p
MATCH (a:Entity {key: p.s}), (b:Entity {key: p.t})
CREATE (a)-[:RELATES {type: p.type, confidence: p.confidence, score_raw: p.score_raw, description: p.description,
                      evidence_ids: p.evidence_ids, origin: p.origin, model: p.model, status: p.status,
                      created_at: p.created_at, updated_at: p.updated_at, history: p.history, quotes: p.quotes}]->(b)
"""
UPDATE_RELATIONS = """
UNWIND $rows AS row
MATCH (a:Entity {key: row.s}), (b:Entity {key: row.t})
MATCH (a)-[r:RELATES {type: row.type}]->(b)
SET r += row.props
"""


def write_unit(
    tx: ManagedTransaction,
    entities: list[EntityRecord],
    *,
    endpoints: dict[str, str],
    evidence: list[EvidenceRecord],
    relations: list[RelationRecord],
    supports: list[tuple[str, str]],
) -> WriteSummary:
    """Explicit entities are upserted in full; relation endpoints are only created if missing."""
    now = utc_now()
    summary = WriteSummary(keys=[e.key for e in entities] + list(endpoints))
    rows = [
        {
            "key": e.key,
            "name": e.name,
            "type": e.type,
            "description": e.description,
            "description_confidence": e.description_confidence or 0.0,
            "aliases": e.aliases,
            "sources": e.sources,
        }
        for e in entities
    ]
    alias_rows = [{"entity": e.key, "key": normalize_key(a), "name": a} for e in entities for a in e.aliases]
    _in_batches(tx, _UPSERT_ENTITIES, rows, now=now)
    _in_batches(tx, _ENSURE_ENTITIES, [{"key": k, "name": n} for k, n in endpoints.items()], now=now)
    _in_batches(tx, _UPSERT_ALIASES, alias_rows)
    ev_rows = [v.as_props() for v in evidence]
    _in_batches(tx, _UPSERT_EVIDENCE, ev_rows)
    _in_batches(tx, _SUPPORTS, [{"entity": k, "evidence": v} for k, v in supports])
    for part in chunked(relations, BATCH):
        written, unchanged = _write_relations(tx, part, now)
        summary.relations_written += written
        summary.relations_unchanged += unchanged
    summary.entities, summary.evidence = len(rows), len(ev_rows)
    return summary


def _in_batches(tx: ManagedTransaction, statement: str, rows: Sequence[Mapping[str, object]], **params: object) -> None:
    """``statement`` run on ``rows`` (its ``$rows``), ``BATCH`` at a time."""
    for batch in chunked(rows, BATCH):
        tx.run(statement, {"rows": batch, **params}).consume()


def _write_relations(tx: ManagedTransaction, relations: Sequence[RelationRecord], now: str) -> tuple[int, int]:
    keys = [{"s": r.source_key, "t": r.target_key, "type": r.type} for r in relations]
    existing = {
        (x["s"], x["t"], x["type"]): cast(RelationProps, x["props"])
        for x in tx.run(EXISTING_RELATIONS, rows=keys).data()
    }
    merged: dict[tuple[str, str, str], RelationProps] = {}
    for rel in relations:
        ident = (rel.source_key, rel.target_key, rel.type)
        props = merge_relation(merged.get(ident) or existing.get(ident), rel, now)
        if props is not None:
            merged[ident] = props
    # checked and written in the same transaction: a concurrent writer of the same edge
    # conflicts on the endpoints and is retried, then finds the edge and updates it
    new = [{**p, "s": s, "t": t} for (s, t, ty), p in merged.items() if (s, t, ty) not in existing]
    old = [{"s": s, "t": t, "type": ty, "props": p} for (s, t, ty), p in merged.items() if (s, t, ty) in existing]
    if new:
        tx.run(_CREATE_RELATIONS, rows=new).consume()
    if old:
        tx.run(UPDATE_RELATIONS, rows=old).consume()
    return len(new) + len(old), len(relations) - len(new) - len(old)


def merge_relation(existing: RelationProps | None, new: RelationRecord, now: str) -> RelationProps | None:
    """New properties for a relation, or None when the assessment changes nothing.

    Evidence accumulates. The confidence of the assessment backed by more distinct
    evidence wins (ties: the newer one). Every change is appended to ``history``.
    """
    evidence_ids = sorted(set(new.evidence_ids))
    event = {
        "at": now,
        "confidence": new.confidence,
        "score_raw": new.score_raw,
        "evidence_ids": evidence_ids,
        "origin": new.origin,
        "model": new.model,
    }
    quotes = _quotes(existing.get("quotes") if existing else None, new.quotes)
    if existing is None:
        return {
            "quotes": quotes or None,  # only a study finding has them: none written on any other edge
            "type": new.type,
            "confidence": new.confidence,
            "score_raw": new.score_raw,
            "description": new.description,
            "evidence_ids": evidence_ids,
            "origin": new.origin,
            "model": new.model,
            "status": "active",
            "created_at": now,
            "updated_at": now,
            "history": [json.dumps({**event, "event": "created"})],
        }
    old_ids = set(existing.get("evidence_ids") or [])
    new_ids = set(new.evidence_ids)
    same_quotes = quotes == list(existing.get("quotes") or [])
    if new_ids <= old_ids and abs(existing.get("confidence", 0) - new.confidence) < 1e-9 and same_quotes:
        return None
    take_new = len(new_ids) >= len(old_ids)
    confidence = new.confidence if take_new else existing["confidence"]
    history = list(existing.get("history") or [])
    history.append(
        json.dumps(
            {
                **event,
                "event": "reassessed",
                "previous": existing.get("confidence"),
                "kept": "new" if take_new else "previous",
            }
        )
    )
    props: RelationProps = {
        **existing,
        "quotes": quotes or None,
        "confidence": confidence,
        "evidence_ids": sorted(old_ids | new_ids),
        "updated_at": now,
        "history": history,
        "status": "active",
    }
    if take_new:
        props["score_raw"] = new.score_raw
        props["description"] = new.description or existing.get("description", "")
        props["model"] = new.model or existing.get("model", "")
    return props


def _quotes(held: list[str] | None, new: list[Quote]) -> list[str]:
    """A finding's sentences as stored (JSON strings), the held ones first, each paper's sentence once."""
    out = list(held or [])
    seen = {(q.get("paper"), q.get("n")) for q in map(json.loads, out)}
    for quote in new:
        if (quote["paper"], quote["n"]) not in seen:
            seen.add((quote["paper"], quote["n"]))
            out.append(json.dumps({"paper": quote["paper"], "n": quote["n"], "text": quote["text"]}))
    return out
