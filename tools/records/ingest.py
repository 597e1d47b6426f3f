"""`amg records ingest`: record files read, their diagnoses resolved to the graph's disease nodes, and each patient
written to the graph's record tier and to the local record store.

Resumable, not atomic: records are written in batches, each batch one transaction in the graph and then one in the
record store, so an interrupted ingest keeps every batch before the interruption and loses nothing already stored;
ingesting the same file again replaces its patients (by id) and completes it. A record that cannot be read is
refused with its file, line and reason, and the others go in. A diagnosis the graph does not know is kept on the
record, with a warning, and not linked.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from amg.tools.kg.records import PatientFinding, PatientWrite, utc_now
from amg.tools.kg.schema import normalize_key
from amg.tools.kg.store.protocols import RecordTier
from amg.tools.records.formats import FindingNames, read_records
from amg.tools.records.model import Diagnosis, PatientRecord, RecordProblem
from amg.tools.records.store import RecordStore, StoredRecord

BATCH = 5000
WARNINGS_SHOWN = 20


@dataclass(kw_only=True)
class IngestReport:
    """What one ingest did."""

    files: int = 0
    stored: int = 0
    refused: list[RecordProblem] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    unlinked_diagnoses: int = 0  # distinct diagnoses the graph does not know (kept on their records)
    seconds: float = 0.0

    @property
    def per_second(self) -> float:
        return self.stored / self.seconds if self.seconds > 0 else 0.0


class DiagnosisLinks:
    """A record's diagnoses as graph disease keys, looked up once per distinct name or id."""

    def __init__(self, graph: RecordTier):
        self.graph = graph
        self.known: dict[str, str | None] = {}

    def resolve(self, diagnoses: Iterable[Diagnosis]) -> None:
        wanted = {normalize_key(x) for d in diagnoses for x in (d.name, *d.ids)} - self.known.keys()
        if not wanted:
            return
        found = self.graph.lookup(sorted(wanted))
        for key in wanted:
            hits = found.get(key, [])
            best = next((h for h in hits if h.get("type") == "disease"), hits[0] if hits else None)
            self.known[key] = best["key"] if best else None

    def keys(self, diagnosis: Diagnosis) -> str | None:
        """The disease node: by the diagnosis's name where the graph has that very entity, else by its ids in
        order, else by the name as an alias."""
        name = normalize_key(diagnosis.name)
        exact = self.known.get(name)
        if exact == name:
            return exact
        for i in diagnosis.ids:
            if key := self.known.get(normalize_key(i)):
                return key
        return exact


def ingest(
    paths: list[Path],
    *,
    records: RecordStore,
    graph: RecordTier,
    names: FindingNames,
    ddxplus_for: Callable[[Path], object | None] = lambda path: None,
    progress: Callable[[int], None] = lambda n: None,
) -> IngestReport:
    """Read, resolve and write every record of ``paths`` (``ddxplus_for``: the DDXPlus dictionary reader beside a
    file, if any; ``progress``: called with each batch's size)."""
    report, started = IngestReport(), time.perf_counter()
    links = DiagnosisLinks(graph)
    for path in paths:
        report.files += 1
        batch: dict[str, tuple[PatientRecord, int]] = {}
        for number, read in enumerate(read_records(path, names, ddxplus_for(path)), start=1):
            if isinstance(read, RecordProblem):
                report.refused.append(read)
                continue
            if read.id in batch:
                report.warnings.append(f"{path}: record {read.id!r} appears twice; the later one is kept")
            batch[read.id] = (read, number)
            if len(batch) >= BATCH:
                _write(list(batch.values()), str(path), records=records, graph=graph, links=links, report=report)
                progress(len(batch))
                batch = {}
        if batch:
            _write(list(batch.values()), str(path), records=records, graph=graph, links=links, report=report)
            progress(len(batch))
    report.seconds = time.perf_counter() - started
    return report


def _write(
    batch: list[tuple[PatientRecord, int]],
    file: str,
    *,
    records: RecordStore,
    graph: RecordTier,
    links: DiagnosisLinks,
    report: IngestReport,
) -> None:
    links.resolve(d for record, _ in batch for d in record.diagnoses)
    now, writes, stored = utc_now(), [], []
    for record, line in batch:
        diseases = []  # one a diagnosis, in order: the disease node, or "" where the graph does not know it
        for diagnosis in record.diagnoses:
            key = links.keys(diagnosis)
            if key is None:
                unknown = f"diagnosis {diagnosis.name!r} ({', '.join(diagnosis.ids) or 'no id'}) is not in the graph"
                if unknown not in report.warnings:
                    report.unlinked_diagnoses += 1
                    report.warnings.append(unknown)
            diseases.append(key or "")
        writes.append(patient_write(record, tuple(dict.fromkeys(k for k in diseases if k))))
        stored.append(StoredRecord(record=record, diseases=tuple(diseases), file=file, line=line, ingested_at=now))
    graph.write_patients(writes)
    records.put(stored)
    report.stored += len(stored)


def patient_write(record: PatientRecord, diseases: tuple[str, ...]) -> PatientWrite:
    present, absent = record.finding_keys()
    findings = [PatientFinding(key=f.key, name=f.label, present=True) for f in record.present]
    findings += [PatientFinding(key=f.key, name=f.label, present=False) for f in record.absent if f.key in absent]
    return PatientWrite(
        id=record.id,
        source=record.source,
        age=record.age,
        sex=record.sex,
        findings=tuple(dict.fromkeys(findings)),
        diseases=diseases,
        diagnosis_names=tuple(d.name for d in record.diagnoses),
        diagnosis_ids=tuple(i for d in record.diagnoses for i in d.ids),
    )


def delete(ids: list[str], *, records: RecordStore, graph: RecordTier) -> tuple[int, list[str]]:
    """Remove these patients from the graph and the record store, and the index caches built with them; (how many
    were removed, the ids that were not there)."""
    held = records.ids() | graph.patient_ids()
    missing = [i for i in ids if i not in held]
    present = [i for i in ids if i in held]
    graph.delete_patients(present)
    gone = records.delete(present)
    records.drop_index_cache()
    return max(gone, len(present)), missing
