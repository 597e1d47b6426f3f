"""Test stagings of the graph that no product code does: empty it, age an entity, drop a source's edges.

Each runs in one transaction of the store's own ``write`` (tools/kg/store/neo4j_store.py).
"""

from __future__ import annotations

from amg.tools.kg.store.neo4j_store import Neo4jStore


def clear(store: Neo4jStore) -> None:
    """Delete every node and relationship: an empty graph."""
    store.write(lambda tx: tx.run("MATCH (n) DETACH DELETE n").consume())


def set_entity_fields(store: Neo4jStore, key: str, fields: dict) -> None:
    """Overwrite some properties of entity ``key`` (stage a stale or often-asked entity)."""
    query = "MATCH (e:Entity {key: $key}) SET e += $fields"
    store.write(lambda tx: tx.run(query, key=key, fields=fields).consume())


def delete_by_origin(store: Neo4jStore, origin: str) -> int:
    """Delete the relations ``origin`` wrote; how many."""
    query = "MATCH ()-[r:RELATES {origin: $origin}]->() DELETE r RETURN count(*) AS n"
    return store.write(lambda tx: tx.run(query, origin=origin).single()["n"])
