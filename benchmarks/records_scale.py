"""The record tier at scale: ingest rate of the phenopackets records, and similar-patient query time at 100,000.

Ingest: the 9,980 phenopacket records of the shared data read, resolved and written to the graph of AMG_DATA_DIR and
a record store beside it (ids prefixed ``bench-``, removed afterwards), records per second. Similarity: the
records grown to ``--patients`` (100,000) by copies of each with one finding moved to an HPO neighbour (a
sibling or parent), so the index has the size and finding spread of a large clinic; then the 300 dev cases queried
(their findings as recorded), p50 / p95 milliseconds.

    python -m benchmarks.records_scale [--patients 100000]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

import numpy as np

from amg.graphs.context import Context
from amg.graphs.resources import Resources
from amg.tools.phenotypes.lexicon import hpo_lexicon
from amg.tools.phenotypes.recognizer import recognise
from amg.tools.records.formats import FindingNames, read_records
from amg.tools.records.ingest import delete, ingest
from amg.tools.records.model import PatientRecord
from amg.tools.records.similarity import IndexedPatient, PatientIndex
from amg.tools.records.store import RecordStore
from amg.tools.records.weights import hpo_ancestors, patient_specificity
from benchmarks.report import SHARED_DATA, emit

RECORDS = SHARED_DATA / "patients" / "phenopackets-records.jsonl.gz"
CASES = SHARED_DATA / "patients" / "phenopackets-dev.jsonl"


def ingest_rate(res: Resources, names: FindingNames) -> tuple[int, float]:
    """(records stored, records/s) for the phenopackets file, ids prefixed so they can be removed after."""
    with tempfile.TemporaryDirectory() as folder:
        prefixed = Path(folder) / "bench-records.jsonl"
        import gzip
        import json

        with gzip.open(RECORDS, "rt", encoding="utf-8") as source, prefixed.open("w", encoding="utf-8") as out:
            for line in source:
                row = json.loads(line)
                row["id"] = f"bench-{row['id']}"
                out.write(json.dumps(row) + "\n")
        store = RecordStore(Path(folder) / "records")
        report = ingest([prefixed], records=store, graph=res.store, names=names)
        ids = sorted(store.ids())
        for i in range(0, len(ids), 5000):
            delete(ids[i : i + 5000], records=store, graph=res.store)
        store.close()
    return report.stored, report.per_second


def grown(records: list[PatientRecord], size: int, seed: int = 0) -> list[IndexedPatient]:
    """``size`` patients: the records, then copies of them with one finding moved to an HPO neighbour."""
    lexicon, rng = hpo_lexicon(), random.Random(seed)
    base = [
        IndexedPatient(
            id=r.id,
            present=frozenset(r.finding_keys()[0]),
            absent=frozenset(r.finding_keys()[1]),
            diagnoses=tuple(i for d in r.diagnoses for i in d.ids),
        )
        for r in records
    ]
    out = list(base)
    while len(out) < size:
        p = base[rng.randrange(len(base))]
        present = set(p.present)
        if present:
            moved = rng.choice(sorted(present))
            term = lexicon.by_key.get(moved)
            parents = lexicon.terms[term].parents if term else []
            near = [lexicon.terms[c].key for t in parents for c in lexicon.children.get(t, []) if c in lexicon.terms]
            near += [lexicon.terms[t].key for t in parents if t in lexicon.terms]
            if near:
                present = (present - {moved}) | {rng.choice(sorted(near))}
        out.append(
            IndexedPatient(id=f"{p.id}~{len(out)}", present=frozenset(present), absent=p.absent, diagnoses=p.diagnoses)
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--patients", type=int, default=100_000)
    parser.add_argument("--no-ingest", action="store_true", help="only the similarity timing (no graph server)")
    args = parser.parse_args()
    names = FindingNames(hpo_lexicon(), recognise)
    stored, rate = 0, 0.0
    if not args.no_ingest:
        res = Resources(Context())
        try:
            stored, rate = ingest_rate(res, names)
        finally:
            res.close()
    records = [r for r in read_records(RECORDS, names) if isinstance(r, PatientRecord)]
    cases = [r for r in read_records(CASES, names) if isinstance(r, PatientRecord)]
    patients = grown(records, args.patients)
    started = time.perf_counter()
    index = PatientIndex(patients, hpo_ancestors(), specificity=patient_specificity(patients))
    built = time.perf_counter() - started
    times = []
    for case in cases:
        present, absent = case.finding_keys()
        started = time.perf_counter()
        index.similar(present, absent, k=3)
        times.append((time.perf_counter() - started) * 1000)
    p50, p95 = float(np.percentile(times, 50)), float(np.percentile(times, 95))
    rows = [
        ("phenopacket records ingested", f"{stored:,} at {rate:,.0f} records/s (target >= 1,000/s)"),
        ("similarity index", f"{len(index):,} patients, {len(index.features):,} findings, built in {built:.1f} s"),
        (
            "similar-patient query (k=3)",
            f"p50 {p50:.1f} ms, p95 {p95:.1f} ms over {len(times)} cases (target p95 <= 200)",
        ),
    ]
    emit(
        "Record tier at scale",
        rows,
        {
            "ingest_records": stored,
            "ingest_per_second": round(rate, 1),
            "patients": len(index),
            "index_build_s": round(built, 2),
            "query_p50_ms": round(p50, 2),
            "query_p95_ms": round(p95, 2),
        },
    )


if __name__ == "__main__":
    main()
