"""The graph store's contracts: one small Protocol per consumer, as nano-graphrag's storage bases.

Each caller asks for what it uses (a method may appear in two contracts); ``GraphStore`` is all of
them, what a backend implements. ``Neo4jStore`` (tools/kg/store/neo4j_store.py) does, over Bolt and
Cypher; the driver and every Cypher statement stay under tools/kg/.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Protocol

from amg.tools.kg.records import (
    EntityProps,
    EntityRecord,
    EvidenceFields,
    EvidenceProps,
    EvidenceRecord,
    GapReport,
    PatientWrite,
    RelationRecord,
    Rescored,
    WriteSummary,
)
from amg.tools.kg.store.rows import (
    Annotation,
    ConfidenceCount,
    CreatedEntity,
    Edge,
    EntityRef,
    ExportRow,
    ExtractedRelation,
    FindingEdge,
    GraphStats,
    LearnedDescription,
    LookupHit,
    PatientLink,
    RefreshCandidate,
    RelationHistory,
    RestingRelation,
    Withdrawal,
)


class QAReads(Protocol):
    """What the QA graph reads: entities, their edges and evidence, gaps, a case's annotations."""

    def entities(self, keys: list[str]) -> dict[str, EntityProps]: ...
    def lookup(self, keys: list[str]) -> dict[str, list[LookupHit]]: ...
    def entities_created_after(
        self, after: str, key: str, *, limit: int, include_vocabulary: bool
    ) -> list[CreatedEntity]: ...
    def neighbors(
        self,
        keys: list[str],
        min_confidence: float | dict[str, float] = 0.0,
        *,
        per_node: int = 50,
        max_degree: int | None = None,
    ) -> list[Edge]: ...
    def evidence(self, ids: list[str]) -> list[EvidenceProps]: ...
    def findings(self, keys: list[str], types: list[str], min_confidence: float) -> list[FindingEdge]: ...
    def every_finding(self, types: list[str]) -> list[FindingEdge]: ...
    def papers_read(self, keys: list[str], limit: int) -> list[EvidenceProps]: ...
    def learned(
        self, keys: list[str], exclude_types: list[str], *, min_confidence: float, per_node: int = 50
    ) -> list[Edge]: ...
    def gap_check(self, keys: list[str], tau: float, *, stale_before: str, min_relations: int) -> list[GapReport]: ...
    def disease_annotations(self, findings: dict[str, list[str]], limit: int) -> list[Annotation]: ...
    def parents(self, keys: list[str]) -> dict[str, list[EntityRef]]: ...


class ExpansionWrites(Protocol):
    """What expansion writes: one logical unit in one transaction, and an entity's refresh or traffic mark."""

    def upsert(
        self,
        entities: Iterable[EntityRecord] = (),
        evidence: Iterable[EvidenceRecord] = (),
        *,
        relations: Iterable[RelationRecord] = (),
        supports: Iterable[tuple[str, str]] = (),
    ) -> WriteSummary: ...
    def touch(self, keys: list[str], field_name: str) -> None: ...


class ClaimReads(Protocol):
    """What a claim check reads offline: the study findings on the claim's entities or in its words, with their
    sentences (``quotes``), the papers they rest on, and the papers read for its entities."""

    def findings(self, keys: list[str], types: list[str], min_confidence: float) -> list[FindingEdge]: ...
    def every_finding(self, types: list[str]) -> list[FindingEdge]: ...
    def evidence(self, ids: list[str]) -> list[EvidenceProps]: ...
    def papers_read(self, keys: list[str], limit: int) -> list[EvidenceProps]: ...


class QAStore(QAReads, ExpansionWrites, Protocol):
    """What the QA graph reads and writes."""


class BuildProgress(Protocol):
    """What the build graph records: the entities already built."""

    def built_keys(self, keys: list[str]) -> set[str]: ...
    def mark_built(self, key: str, relations: int) -> None: ...


class RefreshWork(Protocol):
    """What the refresh graph needs besides expansion: candidates, a lock per entity, re-scored relations."""

    def refresh_candidates(self, stale_before: str, tau: float, limit: int) -> list[RefreshCandidate]: ...
    def claim(self, key: str, owner: str, minutes: int) -> bool: ...
    def release(self, key: str, owner: str) -> None: ...
    def mark_weakened(self, items: list[Rescored], model: str) -> int: ...


class SeedingStore(Protocol):
    """What seeding needs: writes, alias lookups (MONDO resolves ids), progress per vocabulary."""

    def upsert(
        self,
        entities: Iterable[EntityRecord] = (),
        evidence: Iterable[EvidenceRecord] = (),
        *,
        relations: Iterable[RelationRecord] = (),
        supports: Iterable[tuple[str, str]] = (),
    ) -> WriteSummary: ...
    def lookup(self, keys: list[str]) -> dict[str, list[LookupHit]]: ...
    def seed_state(self, origin: str) -> tuple[set[int], bool]: ...
    def save_seed_state(self, origin: str, done: set[int], complete: bool = False) -> None: ...


class AuditStore(Protocol):
    """What the audit (tools/kg/audit.py) reads and marks."""

    def confidence_profile(self) -> list[ConfidenceCount]: ...
    def extracted_relations(self, skip: int, limit: int) -> list[ExtractedRelation]: ...
    def learned_descriptions(self, skip: int, limit: int) -> list[LearnedDescription]: ...
    def evidence(self, ids: list[str]) -> list[EvidenceProps]: ...
    def weaken(self, relations: Sequence[Mapping[str, object]], descriptions: list[str], reason: str) -> None: ...


class LiteratureChanges(Protocol):
    """What keeping the literature current needs (graphs/literature_sync.py): papers withdrawn or revised."""

    def held_evidence(self, ids: list[str]) -> dict[str, str | None]: ...
    def resting_on(self, ids: list[str]) -> list[RestingRelation]: ...
    def withdraw_evidence(self, rows: list[Withdrawal]) -> dict[str, int]: ...
    def queue_reread(self, ids: list[str]) -> int: ...
    def reread_queue(self, limit: int) -> list[EvidenceProps]: ...
    def revise_evidence(self, props: EvidenceFields) -> None: ...
    def reread_done(
        self, evidence_id: str, still_stated: Sequence[RestingRelation], gone: Sequence[Mapping[str, object]]
    ) -> None: ...
    def literature_cursor(self, index_id: str) -> int: ...
    def save_literature_cursor(self, index_id: str, seq: int) -> None: ...


class TransferStore(Protocol):
    """What export and import (tools/kg/transfer/export_import.py) need: every record streamed out, batches restored
    exactly."""

    def export_records(self) -> Iterator[ExportRow]: ...
    def restore(self, kind: str, rows: Sequence[ExportRow]) -> None: ...
    def ensure_schema(self) -> None: ...
    def entities(self, keys: list[str]) -> dict[str, EntityProps]: ...
    def evidence(self, ids: list[str]) -> list[EvidenceProps]: ...


class RecordTier(Protocol):
    """What the record tier (tools/records) keeps in the graph: patients linked to the vocabularies' findings and
    diseases, and the lookups that resolve a record's diagnoses to disease nodes."""

    def lookup(self, keys: list[str]) -> dict[str, list[LookupHit]]: ...
    def existing_keys(self, keys: list[str]) -> set[str]: ...
    def write_patients(self, patients: list[PatientWrite]) -> None: ...
    def delete_patients(self, ids: list[str]) -> int: ...
    def patient_ids(self) -> set[str]: ...
    def patient_links(self, patient_id: str) -> list[PatientLink]: ...


class GraphStore(
    QAStore,
    BuildProgress,
    RefreshWork,
    SeedingStore,
    AuditStore,
    LiteratureChanges,
    TransferStore,
    RecordTier,
    Protocol,
):
    """Every contract, plus what the CLI, the doctor and the benchmarks read, and the connection's end."""

    def get_entity(self, name: str) -> EntityProps | None: ...
    def relation_history(self, key: str) -> list[RelationHistory]: ...
    def stats(self) -> GraphStats: ...
    def phenotype_annotations(self) -> list[Annotation]: ...
    def server_agent(self) -> str: ...
    def close(self) -> None: ...
