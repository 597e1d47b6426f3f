"""Seed the foundation KG from the vocabularies: one transaction per chunk, resumable, idempotent.

Progress is kept in the graph itself (a ``SeedState`` node per vocabulary), so it always
describes the graph it is about; a re-run skips written chunks, and a forced re-run
changes nothing because every upsert is idempotent.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterator

from tools.graph_store import Neo4jGraphStore

SOURCES = ("hpo", "icd10", "drugs")


def _module(source: str):
    if source == "hpo":
        from tools.vocabularies import hpo as module
    elif source == "icd10":
        from tools.vocabularies import icd10 as module
    elif source == "drugs":
        from tools.vocabularies import drugs as module
    else:
        raise ValueError(f"unknown vocabulary {source!r}; choose {', '.join(SOURCES)} or all")
    return module


def _seed_state(store: Neo4jGraphStore, origin: str) -> tuple[set[int], bool]:
    rows = store.read("MATCH (s:SeedState {origin: $origin}) RETURN s.done AS done, s.complete AS complete",
                      origin=origin)  # fmt: skip
    return (set(rows[0]["done"] or []), bool(rows[0]["complete"])) if rows else (set(), False)


def _mark_done(store: Neo4jGraphStore, origin: str, done: set[int], complete: bool = False) -> None:
    query = "MERGE (s:SeedState {origin: $origin}) SET s.done = $done, s.complete = $complete"
    store.write(lambda tx: tx.run(query, origin=origin, done=sorted(done), complete=complete).consume())


def seed(
    store: Neo4jGraphStore,
    source: str,
    progress: Callable[[str, int], None] = lambda source, n: None,
    force: bool = False,
) -> dict:
    """Write one vocabulary; returns counts of what this run wrote and skipped."""
    module = _module(source)
    done, complete = (set(), False) if force else _seed_state(store, module.ORIGIN)
    totals = {"source": source, "chunks": 0, "skipped_chunks": 0, "entities": 0, "relations_written": 0}
    if complete:
        totals["skipped_chunks"] = len(done)
        return totals
    for number, chunk in _prefetched(module.chunks()):
        if number in done:
            totals["skipped_chunks"] += 1
        else:
            summary = store.upsert(chunk.entities, chunk.evidence, chunk.relations, chunk.supports)
            done.add(number)
            _mark_done(store, module.ORIGIN, done)
            totals["chunks"] += 1
            totals["entities"] += summary.entities
            totals["relations_written"] += summary.relations_written
        progress(source, len(chunk))
    _mark_done(store, module.ORIGIN, done, complete=True)
    return totals


def _prefetched(chunks: Iterator, depth: int = 2) -> Iterator:
    """Number the chunks, building the next ones in a thread while the current one is written."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        iterator = iter(chunks)
        queue = [pool.submit(next, iterator, None) for _ in range(depth)]
        number = 0
        while True:
            chunk = queue.pop(0).result()
            if chunk is None:
                return
            queue.append(pool.submit(next, iterator, None))
            yield number, chunk
            number += 1
