"""Seed the foundation KG from the vocabularies: one transaction per chunk, resumable, idempotent.

Progress is kept in the graph itself (a ``SeedState`` node per vocabulary), so it always
describes the graph it is about; a re-run skips written chunks, and a forced re-run
changes nothing because every upsert is idempotent.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterator

from tools.kg.store import GraphStore

SOURCES = ("hpo", "icd10", "drugs")


def _module(source: str):
    if source == "hpo":
        from tools.kg.vocabularies import hpo as module
    elif source == "icd10":
        from tools.kg.vocabularies import icd10 as module
    elif source == "drugs":
        from tools.kg.vocabularies import drugs as module
    else:
        raise ValueError(f"unknown vocabulary {source!r}; choose {', '.join(SOURCES)} or all")
    return module


def seed(
    store: GraphStore,
    source: str,
    progress: Callable[[str, int], None] = lambda source, n: None,
    force: bool = False,
) -> dict:
    """Write one vocabulary; returns counts of what this run wrote and skipped."""
    module = _module(source)
    done, complete = (set(), False) if force else store.seed_state(module.ORIGIN)
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
            store.save_seed_state(module.ORIGIN, done)
            totals["chunks"] += 1
            totals["entities"] += summary.entities
            totals["relations_written"] += summary.relations_written
        progress(source, len(chunk))
    store.save_seed_state(module.ORIGIN, done, complete=True)
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
