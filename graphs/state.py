"""State of the QA graph.

``messages`` makes Studio's chat work (the last human message is the question; the answer
comes back as an AI message). What a path, a link, an evidence item and a citation are:
tools/kg/pipeline_types.py. ``Turn`` declares the per-question fields, reset at the start of each
turn (``PER_TURN_RESET``, derived from the declaration): the accumulating ones take ``RESET``
through their reducers, the others an empty value of their type.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Annotated, Any, Final, TypeVar, Union, get_args, get_origin, get_type_hints

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict, is_typeddict

from amg.agents.answer_synthesizer.glossary import GlossaryEntry
from amg.agents.answer_synthesizer.synthesizer import Basis
from amg.agents.claim_checker.paper import ClaimPaper
from amg.agents.claim_checker.verdict import Verdict
from amg.agents.evidence_searcher import KeptEvidence
from amg.agents.reasoner import Draft
from amg.tools.kg.pipeline_types import (
    CandidateDiagnosis,
    Citation,
    EvidenceItem,
    FollowUp,
    Gap,
    GraphPath,
    QuestionEntity,
    SimilarPatient,
    Subgraph,
)
from amg.tools.kg.records import EvidenceFields, LearnedRelation
from amg.tools.llm.conversation import Turn as ModelTurn

RESET: Final = None  # an update of None empties an accumulating field
Update = Mapping[str, object]  # what a node returns: its fields of the state, each merged through its reducer
CLAIM = "claim"  # the evidence key of what a research question's own search found (graphs/qa_graph.py)
KEPT = "kept"  # the evidence key of the papers the graph kept, read for a research question nothing was searched for
K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")


def summed(current: int | None, update: int | None) -> int:
    return 0 if update is RESET else (current or 0) + update


def merged(current: dict[K, V] | None, update: dict[K, V] | None) -> dict[K, V]:
    return {} if update is RESET else {**(current or {}), **update}


def timings(current: dict[str, float] | None, update: dict[str, float] | None) -> dict[str, float]:
    if update is RESET:
        return {}
    out = dict(current or {})
    for node, ms in update.items():
        out[node] = round(out.get(node, 0.0) + ms, 2)
    return out


def appended(current: list[T] | None, update: list[T] | None) -> list[T]:
    return [] if update is RESET else (current or []) + list(update)


def distinct(current: list[T] | None, update: list[T] | None) -> list[T]:
    if update is RESET:
        return []
    return list(dict.fromkeys((current or []) + list(update)))


class Conversation(TypedDict, total=False):
    """Kept across a chat's turns."""

    messages: Annotated[list[AnyMessage], add_messages]
    findings: dict[str, bool]  # answers to earlier follow-up questions: finding key -> present?
    topic: list[QuestionEntity]  # what the last answer was about, kept for a follow-up's retrieval (graphs/question.py)


class Turn(TypedDict, total=False):
    """One question's fields, reset at the start of each turn."""

    question: str
    options: dict[str, str]
    check: bool  # asked to check a claim (`amg check`), whatever its wording
    kind: str  # "claim", "research" or "exam" (tools/question_kinds.py), decided once in prepare
    claim: str  # a claim's statement, without a checking phrase ("Is it true that …?")
    papers: list[ClaimPaper]  # a claim's papers, each with its stance and settling sentences (agents/claim_checker/)
    verdict: Verdict  # a claim's verdict across its papers
    entities: list[QuestionEntity]
    gaps: list[Gap]
    claim_gap: bool  # a research question whose claim the graph does not hold (agents/gap_detector.py)
    evidence: Annotated[dict[str, KeptEvidence], merged]  # entity key (or CLAIM, KEPT) -> {records, texts}
    new_relations: Annotated[list[LearnedRelation], appended]
    subgraph: Subgraph
    evidence_index: list[EvidenceItem]
    reasoning: dict[str, str]
    reading: str  # a research question's studies, read by the answer instead of a chain of thought
    draft: Draft  # an open question's answer by the model alone, read against the graph (agents/answer_synthesizer)
    dialogue: list[ModelTurn]  # this question's conversation with the model (tools/llm/conversation.py)
    answer: str
    answer_entities: list[QuestionEntity]  # vocabulary entities the answer names, learned about from its evidence
    option: str | None
    confidence: float
    confidence_basis: Basis  # how the confidence was made (agents.answer_synthesizer)
    citations: list[Citation]
    glossary: list[GlossaryEntry]  # curated definitions of the terms the answer rests on (answer_synthesizer/glossary)
    differential: list[CandidateDiagnosis]  # candidate diagnoses for the case's findings (agents.diagnostician)
    follow_up: list[FollowUp]  # findings worth asking about next, as questions
    similar: list[SimilarPatient]  # the stored patients most like the case (tools/records), each with its diagnoses
    record: str  # the id of a stored patient whose record is the case (`amg ask --record ID`)
    follows: bool  # this chat message leans on the previous turn (graphs/question.py), read once in prepare
    shown: dict[str, list[GraphPath]]  # the paths the model sees, per question entity, chosen once in traverse
    on_point: list[GraphPath]  # the facts that bear on what the question asks, chosen once in traverse
    records_differential: list[CandidateDiagnosis]  # with your patients, where the model may not read them
    rationale: str
    notices: list[str]
    problem: str | None  # set when the input cannot be answered (empty, options without question, ...)
    # run trace
    timings_ms: Annotated[dict[str, float], timings]
    llm_calls: Annotated[int, summed]
    tokens: Annotated[int, summed]
    degradations: Annotated[list[str], distinct]
    learning_faults: Annotated[int, summed]  # faults while learning after the answer (the answer stands)


class QAState(Conversation, Turn, total=False):
    """The QA graph's state: the conversation and the current turn."""


class QAInput(TypedDict, total=False):
    """What a caller may pass: chat messages, or a question with optional options."""

    messages: Annotated[list[AnyMessage], add_messages]
    question: str
    options: dict[str, str]
    check: bool  # check the message as a claim, whatever its wording
    record: str  # diagnose this stored patient (`amg ask --record ID`)
    claim: str  # the claim ``check`` states, when the caller derived it already (`amg check`)


def emptied(hint: Any) -> Any:
    """The value that resets a field of type ``hint``: RESET for an accumulating (reduced) field, None for an
    optional one, else an empty value of the type (a TypedDict with each of its keys emptied)."""
    origin = get_origin(hint)
    if origin is Annotated:
        return RESET
    if origin in (Union, types.UnionType) and type(None) in get_args(hint):
        return None
    kind = origin or hint
    if is_typeddict(kind):
        return {key: emptied(field) for key, field in get_type_hints(kind).items() if key in kind.__required_keys__}
    return kind()


PER_TURN_RESET = {name: emptied(hint) for name, hint in get_type_hints(Turn, include_extras=True).items()}


def fetched(state: QAState) -> list[EvidenceFields]:
    """Records fetched this turn, the question's own search first (its best match is read at length)."""
    evidence = state.get("evidence", {})
    ordered = sorted(evidence.items(), key=lambda item: item[0] != CLAIM)
    return [r for _, found in ordered for r in found.get("records", [])]


def fetched_ids(state: QAState) -> list[str]:
    """The ids of ``fetched(state)``, in its order."""
    return [r["id"] for r in fetched(state)]


def fetched_texts(state: QAState) -> dict[str, str]:
    """The texts of ``fetched(state)``, in its order."""
    texts = {i: t for found in state.get("evidence", {}).values() for i, t in (found.get("texts") or {}).items()}
    return {r["id"]: texts[r["id"]] for r in fetched(state) if r["id"] in texts}
