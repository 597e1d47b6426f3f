"""Typed records that cross the graph-store boundary."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from datetime import UTC, datetime
from typing import Literal, NotRequired, TypedDict

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
    _: KW_ONLY
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


class EntityProps(TypedDict):
    """An Entity node's properties as the store holds them (absent when never set)."""

    key: str
    name: str
    type: str
    aliases: NotRequired[list[str]]
    sources: NotRequired[list[str]]
    description: NotRequired[str | None]
    description_confidence: NotRequired[float]
    description_status: NotRequired[str]  # "weakened": the audit found it breaks a grounding rule
    description_note: NotRequired[str]
    created_at: NotRequired[str]
    updated_at: NotRequired[str]
    refreshed_at: NotRequired[str]
    hits: NotRequired[int]  # questions that named it
    refresh_lock: NotRequired[str]
    refresh_owner: NotRequired[str]


WITHDRAWN = ("retracted", "deleted")  # an evidence item's status when nothing may rest on it


class EvidenceFields(TypedDict):
    """An evidence item's fields as plain data (``EvidenceRecord.as_props``), absent when never set."""

    id: str
    kind: str
    title: NotRequired[str]
    snippet: NotRequired[str]
    year: NotRequired[int | None]
    journal: NotRequired[str | None]
    pmid: NotRequired[str | None]
    doi: NotRequired[str | None]
    url: NotRequired[str | None]
    release: NotRequired[str | None]
    retrieved_at: NotRequired[str]
    status: NotRequired[str | None]  # "retracted" | "deleted" (WITHDRAWN); None: it stands
    sentences: NotRequired[list[str] | None]


class EvidenceProps(EvidenceFields):
    """An Evidence node's properties: ``EvidenceRecord``'s fields, and what the literature's upkeep adds."""

    status_note: NotRequired[str]
    status_at: NotRequired[str]
    reread_at: NotRequired[str]  # queued for a re-read of its revision
    reread_done_at: NotRequired[str]
    revised_at: NotRequired[str]


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

    def as_props(self) -> EvidenceFields:
        return EvidenceFields(
            id=self.id,
            kind=self.kind,
            title=self.title,
            snippet=self.snippet,
            year=self.year,
            journal=self.journal,
            pmid=self.pmid,
            doi=self.doi,
            url=self.url,
            release=self.release,
            retrieved_at=self.retrieved_at,
            status=self.status,
            sentences=self.sentences,
        )


class Quote(TypedDict):
    """A study finding's sentence: the paper's id, its number in the abstract, its text."""

    paper: str
    n: int
    text: str


@dataclass
class RelationRecord:
    """A scored relation between two entities, always backed by evidence."""

    source: str
    target: str
    _: KW_ONLY
    type: str
    confidence: float
    evidence_ids: list[str]
    score_raw: float | None = None
    description: str = ""
    origin: str = ""  # what produced it: "pubmed", "vocabulary:hpo", "refresh", ...
    model: str = ""
    # a study finding's sentences, each {"paper": paper id, "n": its number in the abstract, "text"}: kept per paper,
    # so a claim check read offline quotes what the papers said (agents/claim_checker/)
    quotes: list[Quote] = field(default_factory=list)
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

    def learned(self, *extra: Literal["description", "quotes"]) -> LearnedRelation:
        """What a node reports of a relation it learned: ends, type, confidence, evidence, and the ``extra`` fields."""
        said = LearnedRelation(
            source=self.source,
            type=self.type,
            target=self.target,
            confidence=self.confidence,
            evidence_ids=self.evidence_ids,
        )
        for name in extra:
            if name == "description":
                said["description"] = self.description
            else:
                said["quotes"] = self.quotes
        return said


class LearnedRelation(TypedDict):
    """A relation as a node reports having learned it (``RelationRecord.learned``)."""

    source: str
    type: str
    target: str
    confidence: float
    evidence_ids: list[str]
    description: NotRequired[str]
    quotes: NotRequired[list[Quote]]


class RelationProps(TypedDict):
    """A RELATES edge's properties as the store holds them (neo4j_writes.merge_relation writes them)."""

    type: str
    confidence: float
    evidence_ids: list[str]
    score_raw: NotRequired[float | None]
    description: NotRequired[str]
    origin: NotRequired[str]
    model: NotRequired[str]
    status: NotRequired[str]  # "active" | "weakened"
    created_at: NotRequired[str]
    updated_at: NotRequired[str]
    history: NotRequired[list[str]]  # each change, a JSON object
    quotes: NotRequired[list[str] | None]  # a study finding's sentences, each a JSON ``Quote``


class Rescored(TypedDict):
    """A held relation scored again under the keep threshold: to be marked weakened (``mark_weakened``)."""

    source: str
    type: str
    target: str
    score: float  # the model's, 1-10
    confidence: NotRequired[float]  # the score's on the reader's map; else score_to_confidence's
    evidence_ids: list[str]


@dataclass
class GapReport:
    key: str
    status: str  # "ok" | "missing" | "stale" | "thin"
    _: KW_ONLY
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
