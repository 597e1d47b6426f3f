"""What the graph store's reads return, row by row: the names each Cypher ``RETURN`` gives its columns
(tools/kg/store/neo4j_reads.py, neo4j_bookkeeping.py, neo4j_literature.py, neo4j_inspection.py). Node and edge
properties themselves are records.py's ``EntityProps``, ``EvidenceProps`` and ``RelationProps``."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from amg.tools.kg.records import EntityProps, EvidenceProps, RelationProps


class Edge(TypedDict):
    """An edge touching entity ``key``, read from its side: the entity at its other end (``other``, ``name``,
    ``type``), the relation (``rel``), and whether it leaves ``key`` (``forward``)."""

    key: str
    other: str
    name: str
    type: str
    rel: str
    confidence: float
    evidence_ids: list[str]
    forward: bool
    description: str | None


class FindingEdge(Edge):
    """A study's finding as an edge, with its sentences (each a JSON ``Quote``); every finding read at once names
    its subject too."""

    quotes: list[str]
    subject: NotRequired[str]


class EntityRef(TypedDict):
    key: str
    name: str
    type: str


class LookupHit(EntityRef):
    how: str  # "exact": the key is the entity's; "alias": one of its aliases


class CreatedEntity(EntityRef):
    at: str  # created_at


class Annotation(TypedDict):
    """A disease-phenotype annotation (HPO): the finding's frequency in the disease as a confidence."""

    disease: str
    name: str
    finding: str
    finding_name: str
    confidence: float
    evidence_ids: NotRequired[list[str]]


class RelationHistory(TypedDict):
    source: str
    type: str
    target: str
    confidence: float
    status: str | None
    history: list[str] | None  # each change, a JSON object


class GraphStats(TypedDict):
    entities: int
    relations: int
    evidence: int
    entity_types: dict[str, int]
    entities_by_source: dict[str, int]
    relations_by_origin: dict[str, int]


class RefreshCandidate(EntityRef):
    since: str | None  # refreshed_at
    why: str  # "stale" | "near tau"


class ConfidenceCount(TypedDict):
    """Relations of one origin, model and status whose confidence is in one tenth (``tenth``: 0-10)."""

    origin: str
    model: str
    status: str
    tenth: int
    n: int
    total: float  # their confidences summed


class ExtractedRelation(TypedDict):
    """A model-written relation as the audit reads it: ends by key (``s``, ``t``) and name, with their types and
    aliases, and the sentence it was read from."""

    s: str
    t: str
    type: str
    source: str
    target: str
    source_type: str
    target_type: str
    source_aliases: list[str]
    target_aliases: list[str]
    evidence_ids: list[str]
    confidence: float
    model: str | None
    sentence: str | None


class LearnedDescription(TypedDict):
    key: str
    name: str
    description: str


class RestingRelation(TypedDict):
    """A relation resting on paper ``id`` (one of its evidence ids), with its ends by key and name."""

    id: str
    s: str
    t: str
    type: str
    source: str
    target: str
    source_aliases: list[str]
    target_aliases: list[str]
    confidence: float
    evidence_ids: list[str]
    status: str
    description: str | None
    origin: str | None


class Withdrawal(TypedDict):
    """A paper PubMed withdrew, as the store is told of it (``withdraw_evidence``)."""

    id: str
    status: str  # "retracted" | "deleted"
    note: str


class OutgoingRelation(TypedDict):
    target: str
    props: RelationProps


class StoredRelation(TypedDict):
    source: str
    target: str
    props: RelationProps


# -- export and import (tools/kg/transfer/): one row per record, references before what they point to -----------
class RelationRow(TypedDict):
    kind: Literal["relation"]
    source: str  # entity keys
    target: str
    props: RelationProps


class SupportRow(TypedDict):
    kind: Literal["support"]
    entity: str
    evidence: str


class AliasRow(TypedDict):
    kind: Literal["alias"]
    entity: str
    key: str
    name: str


class EntityRow(TypedDict):
    kind: Literal["entity"]
    key: str
    props: EntityProps


class EvidenceRow(TypedDict):
    kind: Literal["evidence"]
    id: str
    props: EvidenceProps


class SeedStateRow(TypedDict):
    kind: Literal["seed_state"]
    origin: str
    done: list[int]
    complete: bool


ExportRow = RelationRow | SupportRow | AliasRow | EntityRow | EvidenceRow | SeedStateRow


class PatientLink(TypedDict):
    """What a stored patient links to in the graph (tools/kg/store/neo4j_records.py)."""

    kind: str  # "finding" or "diagnosis"
    key: str
    name: str | None
    present: bool | None  # a finding's; None for a diagnosis
