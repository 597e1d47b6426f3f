"""Typed records that cross the graph-store boundary."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import UTC, datetime

from amg.tools.kg.schema import (
    EVIDENCE_KINDS,
    RELATION_TYPES,
    entity_type,
    normalize_key,
    validate_name,
)


def iso_utc(moment: datetime) -> str:
    """Timestamps are ISO-8601 UTC strings: portable, sortable, exact on round-trip."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def utc_now() -> str:
    return iso_utc(datetime.now(UTC))


@dataclass
class EntityRecord:
    name: str
    type: str = "other"
    description: str | None = None
    description_confidence: float | None = None
    aliases: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    key: str = field(init=False)

    def __post_init__(self) -> None:
        self.name = validate_name(self.name)
        self.type = entity_type(self.type)
        self.aliases = sorted({validate_name(a) for a in self.aliases if isinstance(a, str) and a.strip()})
        self.key = normalize_key(self.name)


WITHDRAWN = ("retracted", "deleted")  # an evidence item's status when nothing may rest on it


@dataclass
class EvidenceRecord:
    """One piece of evidence; ``id`` is stable (``pmid:123``, ``wiki:Title``, ``vocab:HP:0001``)."""

    id: str
    kind: str
    title: str = ""
    snippet: str = ""
    year: int | None = None
    journal: str | None = None
    pmid: str | None = None
    doi: str | None = None
    url: str | None = None
    release: str | None = None  # vocabulary release, for kind "vocabulary"
    retrieved_at: str = field(default_factory=utc_now)
    status: str | None = None  # "retracted" | "deleted" when PubMed withdrew the paper (WITHDRAWN); None: it stands
    # the numbered sentences a claim check read in the paper, each a JSON {"n", "text"}; every check's are kept
    sentences: list[str] | None = None

    def __post_init__(self) -> None:
        if self.kind not in EVIDENCE_KINDS:
            raise ValueError(f"evidence kind {self.kind!r} is not one of {', '.join(EVIDENCE_KINDS)}")
        if not self.id:
            raise ValueError("evidence id is empty")
        if self.status is not None and self.status not in WITHDRAWN:
            raise ValueError(f"evidence status {self.status!r} is not one of {', '.join(WITHDRAWN)}")

    def as_props(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}  # flat fields: no deep copy


@dataclass
class RelationRecord:
    """A scored relation between two entities, always backed by evidence."""

    source: str
    target: str
    type: str
    confidence: float
    evidence_ids: list[str]
    score_raw: float | None = None
    description: str = ""
    origin: str = ""  # what produced it: "pubmed", "vocabulary:hpo", "refresh", ...
    model: str = ""
    # a study finding's sentences, each {"paper": paper id, "n": its number in the abstract, "text"}: kept per paper,
    # so a claim check read offline quotes what the papers said (agents/claim_checker/)
    quotes: list[dict] = field(default_factory=list)
    source_key: str = field(init=False)
    target_key: str = field(init=False)

    def __post_init__(self) -> None:
        self.source, self.target = validate_name(self.source), validate_name(self.target)
        if self.type not in RELATION_TYPES:
            raise ValueError(f"relation type {self.type!r} is not in the vocabulary")
        if not 0.0 <= float(self.confidence) <= 1.0:
            raise ValueError(f"confidence {self.confidence} is outside [0, 1]")
        if not self.evidence_ids:
            raise ValueError(f"relation {self.source} -{self.type}-> {self.target} has no evidence")
        self.source_key, self.target_key = normalize_key(self.source), normalize_key(self.target)
        if self.source_key == self.target_key:
            raise ValueError(f"relation {self.source} -{self.type}-> itself")

    def learned(self, *extra: str) -> dict:
        """What a node reports of a relation it learned: ends, type, confidence, evidence, and the ``extra`` fields."""
        keep = ("source", "type", "target", "confidence", "evidence_ids", *extra)
        return {name: getattr(self, name) for name in keep}


@dataclass
class GapReport:
    key: str
    status: str  # "ok" | "missing" | "stale" | "thin"
    strong_relations: int = 0
    refreshed_at: str | None = None


@dataclass
class WriteSummary:
    """What one logical write did."""

    entities: int = 0
    evidence: int = 0
    relations_written: int = 0
    relations_unchanged: int = 0
    keys: list[str] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class PatientFinding:
    """A patient's finding as the graph links it: to the vocabulary node ``key`` when the graph has one, else to the
    record tier's own finding node of that key and ``name``."""

    key: str
    name: str
    present: bool


@dataclass(frozen=True, kw_only=True)
class PatientWrite:
    """A patient record as the graph keeps it (the private tier): who, findings, and the disease nodes its diagnoses
    resolved to (``diseases``: graph keys), beside the diagnoses as the record states them."""

    id: str
    source: str
    age: str
    sex: str
    findings: tuple[PatientFinding, ...]
    diseases: tuple[str, ...]
    diagnosis_names: tuple[str, ...]
    diagnosis_ids: tuple[str, ...]
