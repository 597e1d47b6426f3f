"""KG at the paper's scale (76,681 entities, 354,299 relations) through the store API.

Relations get power-law (Zipf-like) endpoint choice, so a few hubs have thousands of edges
as real medical graphs do; every relation has evidence. Reports write throughput and
confidence-propagating traversal latency (random seed, depth 2, tau 0.5) as the graph
grows from 10k to 354k relations, and times `amg kg seed --vocabulary all` (all curated sources) with
the entities and relations each source wrote.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from amg.evaluation.metrics import percentile
from amg.tools.kg.records import EvidenceRecord, RelationRecord
from amg.tools.kg.schema import RELATION_TYPES
from amg.tools.kg.store.connection import connect_graph
from amg.tools.kg.store.neo4j_store import Neo4jStore
from amg.tools.kg.traversal.traverse import Limits, traverse
from benchmarks.report import emit

ENTITIES, RELATIONS = 76_681, 354_299
CHECKPOINTS = (10_000, 50_000, 100_000, 200_000, RELATIONS)
BATCH = 5_000


def synthetic_relations(rng: random.Random, n_entities: int, n_relations: int):
    weights = [1.0 / (rank + 1) ** 0.8 for rank in range(n_entities)]
    names = [f"Entity {i:06d}" for i in range(n_entities)]
    seen = set()
    while len(seen) < n_relations:
        for s, t in zip(
            rng.choices(range(n_entities), weights, k=20_000), rng.choices(range(n_entities), weights, k=20_000)
        ):
            rel = rng.choice(RELATION_TYPES)
            if s != t and (s, t, rel) not in seen and len(seen) < n_relations:
                seen.add((s, t, rel))
                yield names[s], names[t], rel, round(rng.uniform(0.3, 1.0), 3)


def traversal_latency(store: Neo4jStore, rng: random.Random, n_entities: int, samples: int) -> list[float]:
    times = []
    for _ in range(samples):
        key = f"entity {rng.randrange(n_entities):06d}"
        started = time.perf_counter()
        traverse(store.neighbors, {key: (key, "other")}, Limits(tau=0.5, max_depth=2, max_nodes=40))
        times.append((time.perf_counter() - started) * 1000)
    return times


def time_seed(data: Path) -> tuple[float, dict]:
    """Seconds for `amg kg seed --vocabulary all` into an empty data dir, and its counts per source."""
    env = {**os.environ, "AMG_DATA_DIR": str(data / "seed")}
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "amg.cli.main", "kg", "seed", "--vocabulary", "all"],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    seconds = round(time.perf_counter() - started, 1)
    driver, database, server = connect_graph("", "", password="", database="", data_dir=data / "seed")
    stats = Neo4jStore(driver, database).stats()
    driver.close()
    server.release()
    return seconds, {
        "entities": stats["entities_by_source"],
        "relations": stats["relations_by_origin"],
        "total_entities": stats["entities"],
        "total_relations": stats["relations"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--relations", type=int, default=RELATIONS)
    parser.add_argument("--entities", type=int, default=ENTITIES)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--skip-seed", action="store_true", help="do not time `amg kg seed --vocabulary all`")
    args = parser.parse_args()
    rng = random.Random(7)
    data = Path(tempfile.mkdtemp(prefix="amg-kgscale-"))
    driver, database, server = connect_graph("", "", password="", database="", data_dir=data)
    store = Neo4jStore(driver, database)
    store.ensure_schema()
    rows, growth, written, write_s = [], [], 0, 0.0
    batch = []
    checkpoints = [c for c in CHECKPOINTS if c < args.relations] + [args.relations]
    for s, t, rel, conf in synthetic_relations(rng, args.entities, args.relations):
        batch.append(
            RelationRecord(
                s,
                t,
                type=rel,
                confidence=conf,
                evidence_ids=[f"pmid:{9_000_000 + written // 100}"],
                score_raw=conf * 10,
                description="",
                origin="bench",
            )
        )
        written += 1
        if len(batch) == BATCH or written in checkpoints:
            evidence = [EvidenceRecord(id=i, kind="pubmed") for i in sorted({r.evidence_ids[0] for r in batch})]
            started = time.perf_counter()
            store.upsert(evidence=evidence, relations=batch)
            write_s += time.perf_counter() - started
            batch = []
        if written in checkpoints:
            traversal_latency(store, rng, args.entities, 30)  # warm-up: a running service has compiled its queries
            lat = traversal_latency(store, rng, args.entities, args.samples)
            growth.append((written, round(percentile(lat, 50), 2), round(percentile(lat, 95), 2)))
            print(f"  {written:>7,} relations: traversal p50 {growth[-1][1]} ms, p95 {growth[-1][2]} ms", flush=True)
    stats = store.stats()
    driver.close()
    server.release()
    seed_s, seeded = (None, None) if args.skip_seed else time_seed(data)
    figures = {
        "write_rels_per_s": round(written / write_s),
        "traversal_p50_ms": growth[-1][1],
        "traversal_p95_ms": growth[-1][2],
        "nodes": stats["entities"],
        "relations": stats["relations"],
        "latency_growth": [{"relations": n, "p50_ms": a, "p95_ms": b} for n, a, b in growth],
        "seed_all_s": seed_s,
        "seeded_per_source": seeded,
    }
    rows = [
        ("entities / relations", f"{stats['entities']:,} / {stats['relations']:,}"),
        ("write throughput", f"{figures['write_rels_per_s']:,} relations/s (with evidence, one tx per 5,000)"),
    ]
    rows += [(f"traversal @ {n:,} rels", f"p50 {a} ms, p95 {b} ms") for n, a, b in growth]
    rows.append(("amg kg seed --vocabulary all", f"{seed_s} s" if seed_s else "skipped"))
    for source, n in (seeded or {}).get("relations", {}).items():
        rows.append((f"  {source}", f"{seeded['entities'].get(source, 0):,} entities, {n:,} relations"))
    emit("KG at paper scale (depth 2, tau 0.5, 40 nodes max)", rows, figures)


if __name__ == "__main__":
    main()
