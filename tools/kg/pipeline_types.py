"""What flows from the traversal to the answer, typed once: a step, a path, a link, the subgraph,
and the numbered evidence items and citations the answer rests on.

TypedDicts rather than classes: they travel in the QA graph's state, which the sqlite checkpointer
(`amg chat`) and LangGraph Studio keep as plain data, and `amg ask --json` prints as it is.
The traversal (tools/kg/traversal/traverse.py) makes the steps; the traverser (agents/traverser.py) the paths.
``Asked`` and ``Found`` are what the reasoner and the answer synthesizer are handed: a node builds them from the
state, so two objects carry what used to be a dozen parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import NotRequired

from typing_extensions import ReadOnly, TypedDict

from amg.tools.kg.records import WITHDRAWN, EvidenceFields


class Named(TypedDict):
    """Something named, by key and name (its type and the graph's other names for it, when known): what a reader of
    question entities, reached nodes or a finding's ends needs. Read only, so a ``QuestionEntity`` is one."""

    key: ReadOnly[str]
    name: ReadOnly[str]
    type: ReadOnly[NotRequired[str]]
    aliases: ReadOnly[NotRequired[list[str]]]


class QuestionEntity(TypedDict):
    """An entity the question names (agents/query_parser.py), linked to the graph when it could be."""

    key: str
    name: str
    type: str
    linked: bool
    how: str  # how it was found: "vocabulary", "phenotype", "lay", "exact", "alias", "embedding", "llm"
    aliases: NotRequired[list[str]]  # the graph's other names for it, read for the answer (quotes.with_aliases)


class Gap(TypedDict):
    """A question entity the graph lacks, or holds stale or thin (agents/gap_detector.py)."""

    key: str
    name: str
    type: str
    status: str  # "missing" | "stale" | "thin"


class Said(TypedDict):
    """A relation as words and what it rests on: what a citation's quote may be read from."""

    source: str  # names, for display
    relation: str  # as read in the direction travelled (a backward step takes the inverse: treated_by)
    target: str
    evidence_ids: list[str]
    description: str  # the edge's own words (a curated interaction's severity, a model's sentence)


class Step(Said):
    """One edge as travelled: "Metformin -treats(0.90)-> Type 2 diabetes mellitus"."""

    confidence: float
    forward: bool  # travelled as stored


Link = Step  # an edge between two question entities, as stored (forward), never part of a path


def read_by_a_model(step: Step) -> bool:
    """Whether ``step`` rests only on evidence a model read (a paper, a passage), none of it a curated vocabulary's
    entry (``vocab:`` ids): its description is then the sentence it was read from."""
    return bool(step["evidence_ids"]) and not any(i.startswith("vocab:") for i in step["evidence_ids"])


def withdrawn(item: Mapping[str, object]) -> bool:
    """Whether PubMed retracted or deleted an evidence item's paper: it may be cited, as such, but nothing rests
    on it."""
    return item.get("status") in WITHDRAWN


def withdrawn_label(item: EvidenceFields) -> str:
    """ "PMID 123 retracted" (the item's id when it has no PMID)."""
    return f"{'PMID ' + pmid if (pmid := item.get('pmid')) else item['id']} {item.get('status')}"


class GraphPath(TypedDict):
    """The best path from a question entity to the node it reaches (``depth`` 0: the question entity)."""

    key: str  # the reached node's
    name: str
    type: str
    description: str | None  # the reached node's, unless the audit weakened it
    score: float  # the product of the steps' confidences
    depth: int
    weak: bool  # kept below tau because nothing around its question entity survived it
    seed: str  # the question entity's name
    seed_key: str
    path: str  # the steps in arrow notation, with the score
    steps: list[Step]
    rank: int  # place among its question entity's paths, 0 = best
    hidden: bool  # kept for the picture, not shown to the reasoner
    relevance: NotRequired[float]  # similarity to the question, when the paths were embedded


class Subgraph(TypedDict):
    nodes: list[GraphPath]
    seeds: list[str]  # question entities' keys found in the graph
    links: list[Link]


class EvidenceItem(EvidenceFields):
    """An evidence item (absent fields unset) numbered for the model to cite: [n]. Its ``status`` "retracted" or
    "deleted" says PubMed withdrew the paper: nothing may rest on it."""

    n: int
    lead: NotRequired[str]  # the longer text of the best evidence fetched for this question


class Citation(TypedDict):
    """An evidence item the answer cites, as `amg ask --json` prints it."""

    n: int
    id: str
    kind: str
    pmid: str | None
    doi: str | None
    title: str | None
    year: int | None
    url: str | None
    evidence_id: str  # = id, the name `amg ask --json` gives it
    # the item's sentence that states the claim, naming the answer's key entity (agents/answer_synthesizer/quotes.py)
    quote: str
    status: NotRequired[str | None]  # "retracted" | "deleted": cited, shown so, and the confidence not resting on it


class CandidateDiagnosis(TypedDict):
    """A candidate of a case's differential as shown (agents/diagnostician.py): its probability, the case's findings
    it explains and those ruled out (by name), the subtypes folded into it, each present finding's frequency in it,
    and the evidence of its annotations."""

    key: str
    name: str
    probability: float
    present: list[str]
    absent: list[str]
    subtypes: list[str]
    frequencies: dict[str, float]
    evidence_ids: list[str]
    patients: NotRequired[list[str]]  # the similar stored patients with this diagnosis (tools/records)
    levels: NotRequired[DiagnosisLevels]  # category, subcategory, disease (ICD-10 chapter, block)


class DiagnosisLevels(TypedDict):
    """A diagnosis at three levels (MedRAG's): ICD-10 chapter, block, the disease, and the ICD-10-CM code read."""

    category: str
    subcategory: str
    disease: str
    code: str


class SimilarPatient(TypedDict):
    """A stored patient like the case, as shown: its id, similarity, diagnoses, the findings shared and contradicted."""

    id: str
    similarity: float
    diagnoses: list[str]
    shared: list[str]
    contradicted: list[str]


class FollowUp(TypedDict):
    """A finding worth asking about next, as a question, with the information its answer would give."""

    finding: str  # its key
    name: str
    question: str
    information_gain_bits: float


@dataclass(frozen=True)
class Asked:
    """The question as a node reads it: its words, its options (letter -> text), its linked entities, and this
    question's conversation with the model so far (tools/llm/conversation.py)."""

    question: str
    options: dict[str, str] = field(default_factory=dict)
    _: KW_ONLY
    entities: list[QuestionEntity] = field(default_factory=list)
    dialogue: list[dict[str, str]] = field(default_factory=list)  # its turns (tools/llm/conversation.py Turn)


@dataclass(frozen=True)
class Found:
    """What the graph and the evidence hold for the question: the subgraph's paths (``nodes``) and the links between
    question entities, the numbered evidence the answer may cite, the ids of what was fetched this run, and the
    differential's candidates."""

    nodes: list[GraphPath] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    _: KW_ONLY
    evidence_index: list[EvidenceItem] = field(default_factory=list)
    fetched_ids: list[str] = field(default_factory=list)
    differential: list[CandidateDiagnosis] = field(default_factory=list)
    shown: dict[str, list[GraphPath]] = field(default_factory=dict)  # the paths the model sees, per question entity
    on_point: list[GraphPath] | None = None  # the facts on what the question asks, when the caller chose them
