"""The record tier's own store on this machine: the records as read, and the similar-patient index built from them.

SQLite (``AMG_DATA_DIR/records/records.sqlite``, WAL, so a reader never waits for an ingest): one row a patient, the
record as read (JSON) and the disease nodes its diagnoses resolved to. Every change bumps a version; the similarity
index (tools/records/similarity.py) is a cache of one version, kept beside the database and rebuilt when the version
moved on (older caches are removed, so a deleted patient leaves nothing behind there either).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from amg.tools.kg.records import utc_now
from amg.tools.records.model import Diagnosis, Finding, PatientRecord
from amg.tools.records.similarity import IndexedPatient, PatientIndex

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS records (id TEXT PRIMARY KEY, source TEXT NOT NULL, body TEXT NOT NULL,
       diseases TEXT NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL, ingested_at TEXT NOT NULL)""",
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)


@dataclass(frozen=True, kw_only=True)
class StoredRecord:
    """A record as stored: the record, the graph's disease key each of its diagnoses resolved to ("" where the graph
    does not know it), where it came from."""

    record: PatientRecord
    diseases: tuple[str, ...]
    file: str
    line: int
    ingested_at: str


@dataclass(frozen=True, kw_only=True)
class RecordSummary:
    """One line of `amg records list`."""

    id: str
    source: str
    age: str
    sex: str
    findings: int
    diagnoses: tuple[str, ...]
    ingested_at: str


class RecordStore:
    def __init__(self, folder: Path):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(folder / "records.sqlite", timeout=60, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        for statement in _SCHEMA:
            self._db.execute(statement)
        self._db.commit()

    def close(self) -> None:
        self._db.close()

    def version(self) -> int:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
        return int(row[0]) if row else 0

    def _bump(self) -> None:
        self._db.execute(
            "INSERT INTO meta (key, value) VALUES ('version', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )

    def put(self, stored: list[StoredRecord]) -> None:
        """Store (or replace, by id) these records in one transaction."""
        if not stored:
            return
        rows = [
            (
                s.record.id,
                s.record.source,
                json.dumps(_plain(s.record), ensure_ascii=False),
                json.dumps(list(s.diseases)),
                s.file,
                s.line,
                s.ingested_at or utc_now(),
            )
            for s in stored
        ]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
            self._bump()

    def delete(self, ids: list[str]) -> int:
        """Remove these records; how many there were."""
        with self._db:
            gone = sum(self._db.execute("DELETE FROM records WHERE id = ?", (i,)).rowcount for i in ids)
            if gone:
                self._bump()
        return gone

    def get(self, record_id: str) -> StoredRecord | None:
        row = self._db.execute(
            "SELECT body, diseases, file, line, ingested_at FROM records WHERE id = ?", (record_id,)
        ).fetchone()
        return _stored(row) if row else None

    def count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM records").fetchone()[0])

    def ids(self) -> set[str]:
        return {row[0] for row in self._db.execute("SELECT id FROM records")}

    def summaries(self, limit: int = 50, offset: int = 0) -> list[RecordSummary]:
        rows = self._db.execute(
            "SELECT body, diseases, file, line, ingested_at FROM records ORDER BY id LIMIT ? OFFSET ?", (limit, offset)
        )
        out = []
        for row in rows:
            s = _stored(row)
            r = s.record
            out.append(
                RecordSummary(
                    id=r.id,
                    source=r.source,
                    age=r.age,
                    sex=r.sex,
                    findings=len(r.present) + len(r.absent),
                    diagnoses=tuple(d.name for d in r.diagnoses),
                    ingested_at=s.ingested_at,
                )
            )
        return out

    def each(self) -> Iterator[StoredRecord]:
        for row in self._db.execute("SELECT body, diseases, file, line, ingested_at FROM records ORDER BY id"):
            yield _stored(row)

    def index(
        self,
        expand: Callable[[str], set[str]],
        specificity: Callable[[list[IndexedPatient]], Callable[[str], float]],
        **settings: float,
    ) -> PatientIndex:
        """The similar-patient index of the records as they are now: loaded from its cache, or built (``specificity``:
        the stored patients -> a finding's specificity) and cached."""
        version = self.version()
        cache = self.folder / "index" / f"v{version}"
        if (cache / "meta.json").is_file():
            return PatientIndex.load(cache, expand)
        patients, names = [], {}
        for stored in self.each():
            patients.append(indexed(stored))
            names.update(diagnosis_names(stored))
        index = PatientIndex(patients, expand, specificity=specificity(patients), names=names, **settings)
        if self.version() == version:  # nothing changed while it was built
            index.save(cache)
            for old in (self.folder / "index").iterdir():
                if old != cache:
                    shutil.rmtree(old, ignore_errors=True)
        return index

    def drop_index_cache(self) -> None:
        shutil.rmtree(self.folder / "index", ignore_errors=True)


def indexed(stored: StoredRecord) -> IndexedPatient:
    """What the similarity index keeps of a stored record."""
    present, absent = stored.record.finding_keys()
    return IndexedPatient(
        id=stored.record.id,
        present=frozenset(present),
        absent=frozenset(absent),
        diagnoses=tuple(dict.fromkeys(diagnosis_keys(stored))),
    )


def diagnosis_keys(stored: StoredRecord) -> list[str]:
    """Each diagnosis's key: its disease node, else (the graph does not know it) its first id, else its name."""
    resolved = list(stored.diseases) + [""] * len(stored.record.diagnoses)
    return [key or (d.ids[0] if d.ids else d.name) for d, key in zip(stored.record.diagnoses, resolved)]


def diagnosis_names(stored: StoredRecord) -> dict[str, str]:
    """{diagnosis key: the name the record gives it}."""
    return {key: d.name for d, key in zip(stored.record.diagnoses, diagnosis_keys(stored))}


class FindingJSON(TypedDict):
    key: str
    label: str
    code: str


class DiagnosisJSON(TypedDict):
    name: str
    ids: list[str]


class RecordJSON(TypedDict):
    """A record as the store keeps it (JSON)."""

    id: str
    source: str
    age: str
    sex: str
    present: list[FindingJSON]
    absent: list[FindingJSON]
    diagnoses: list[DiagnosisJSON]
    note: str
    extra: dict[str, str]


def _plain(record: PatientRecord) -> RecordJSON:
    """The record as JSON-ready data (``dataclasses.asdict`` deep-copies every value: half an ingest's time)."""

    def findings(found: tuple[Finding, ...]) -> list[FindingJSON]:
        return [FindingJSON(key=f.key, label=f.label, code=f.code) for f in found]

    return RecordJSON(
        id=record.id,
        source=record.source,
        age=record.age,
        sex=record.sex,
        present=findings(record.present),
        absent=findings(record.absent),
        diagnoses=[DiagnosisJSON(name=d.name, ids=list(d.ids)) for d in record.diagnoses],
        note=record.note,
        extra=record.extra,
    )


def _stored(row: tuple[str, str, str, int, str]) -> StoredRecord:
    """A record store row (body, diseases, file, line, ingested_at) as a stored record."""
    body, diseases, file, line, ingested_at = row
    data = json.loads(body)
    record = PatientRecord(
        id=data["id"],
        source=data["source"],
        age=data.get("age", ""),
        sex=data.get("sex", ""),
        present=tuple(Finding(**f) for f in data.get("present", [])),
        absent=tuple(Finding(**f) for f in data.get("absent", [])),
        diagnoses=tuple(Diagnosis(name=d["name"], ids=tuple(d.get("ids", []))) for d in data.get("diagnoses", [])),
        note=data.get("note", ""),
        extra=dict(data.get("extra") or {}),
    )
    return StoredRecord(
        record=record, diseases=tuple(json.loads(diseases)), file=file, line=line, ingested_at=ingested_at
    )
