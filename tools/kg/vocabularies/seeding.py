"""Seed the foundation KG from the vocabularies: one transaction per chunk, resumable, idempotent.

Progress is kept in the graph itself (a ``SeedState`` node per vocabulary and version), so it
always describes the graph it is about; a re-run skips written chunks, and a forced re-run
changes nothing because every upsert is idempotent. A vocabulary whose module has a new
``VERSION`` (what it writes changed) is written again over an older seed: its relations take
the new confidences, since the newer assessment with as much evidence wins.
Order matters: MONDO merges its diseases into the HPO and ICD-10-CM entities written before it, and WordNet
last defines the entities the others left undefined.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypedDict

from amg.tools.kg.store.protocols import SeedingStore


class SeedTotals(TypedDict):
    """What seeding one vocabulary did: chunks written and skipped (written before), entities and relations written."""

    vocabulary: str
    chunks: int
    skipped_chunks: int
    entities: int
    relations_written: int


VOCABULARIES = ("hpo", "icd10", "drugs", "chebi", "mondo", "ddi", "essential_medicines", "mesh", "wordnet")


def _module(vocabulary: str):
    if vocabulary not in VOCABULARIES:
        raise ValueError(f"unknown vocabulary {vocabulary!r}; choose {', '.join(VOCABULARIES)} or all")
    return importlib.import_module(f"amg.tools.kg.vocabularies.{vocabulary}")


def _chunks(module, store: SeedingStore):
    return module.chunks(module.store_resolver(store)) if hasattr(module, "store_resolver") else module.chunks()


def _state_key(module) -> str:
    version = getattr(module, "VERSION", 1)
    return module.ORIGIN if version == 1 else f"{module.ORIGIN}@v{version}"


def seed(
    store: SeedingStore,
    vocabulary: str,
    *,
    progress: Callable[[str, int], None] = lambda vocabulary, n: None,
    force: bool = False,
) -> SeedTotals:
    """Write one vocabulary; returns counts of what this run wrote and skipped."""
    module = _module(vocabulary)
    state_key = _state_key(module)
    done, complete = (set(), False) if force else store.seed_state(state_key)
    totals = SeedTotals(vocabulary=vocabulary, chunks=0, skipped_chunks=0, entities=0, relations_written=0)
    if complete:
        totals["skipped_chunks"] = len(done)
        return totals
    for number, chunk in _prefetched(_chunks(module, store)):
        if number in done:
            totals["skipped_chunks"] += 1
        else:
            summary = store.upsert(chunk.entities, chunk.evidence, relations=chunk.relations, supports=chunk.supports)
            done.add(number)
            store.save_seed_state(state_key, done)
            totals["chunks"] += 1
            totals["entities"] += summary.entities
            totals["relations_written"] += summary.relations_written
        progress(vocabulary, len(chunk))
    store.save_seed_state(state_key, done, complete=True)
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
