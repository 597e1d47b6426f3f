"""State of the QA graph.

``messages`` makes Studio's chat work (the last human message is the question; the answer
comes back as an AI message). Per-question fields are reset at the start of each turn:
the accumulating ones take ``RESET`` through their reducers.
"""

from __future__ import annotations

from typing import Annotated, Any

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

RESET: Any = None  # an update of None empties an accumulating field


def summed(current: int | None, update: int | None) -> int:
    return 0 if update is RESET else (current or 0) + update


def merged(current: dict | None, update: dict | None) -> dict:
    return {} if update is RESET else {**(current or {}), **update}


def timings(current: dict | None, update: dict | None) -> dict:
    if update is RESET:
        return {}
    out = dict(current or {})
    for node, ms in update.items():
        out[node] = round(out.get(node, 0.0) + ms, 2)
    return out


def appended(current: list | None, update: list | None) -> list:
    return [] if update is RESET else (current or []) + list(update)


def distinct(current: list | None, update: list | None) -> list:
    if update is RESET:
        return []
    return list(dict.fromkeys((current or []) + list(update)))


class QAState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    question: str
    options: dict[str, str]
    entities: list[dict]
    gaps: list[dict]
    evidence: Annotated[dict[str, dict], merged]  # entity key -> {records, texts}
    new_relations: Annotated[list[dict], appended]
    subgraph: dict
    evidence_index: list[dict]
    reasoning: dict[str, str]
    dialogue: list[dict]  # this question's conversation with the model (agents.conversation)
    answer: str
    answer_entities: list[dict]  # vocabulary entities the answer names, learned about from its cited evidence
    option: str | None
    confidence: float
    confidence_basis: dict  # how the confidence was made (agents.answer_synthesizer)
    citations: list[dict]
    glossary: list[dict]  # curated definitions of the terms the answer rests on (agents.glossary)
    differential: list[dict]  # candidate diagnoses for the case's findings (agents.diagnostician)
    follow_up: list[dict]  # findings worth asking about next, as questions
    findings: dict[str, bool]  # answers to earlier follow-up questions: finding key -> present?
    rationale: str
    notices: list[str]
    problem: str | None  # set when the input cannot be answered (empty, options without question, ...)
    # run trace
    timings_ms: Annotated[dict[str, float], timings]
    llm_calls: Annotated[int, summed]
    tokens: Annotated[int, summed]
    degradations: Annotated[list[str], distinct]


class QAInput(TypedDict, total=False):
    """What a caller may pass: chat messages, or a question with optional options."""

    messages: Annotated[list[AnyMessage], add_messages]
    question: str
    options: dict[str, str]


PER_TURN_RESET = {
    "evidence": RESET, "new_relations": RESET, "timings_ms": RESET, "llm_calls": RESET, "tokens": RESET,
    "degradations": RESET, "entities": [], "gaps": [], "subgraph": {}, "evidence_index": [], "reasoning": {},
    "dialogue": [], "citations": [], "glossary": [], "differential": [], "follow_up": [], "answer": "", "answer_entities": [], "option": None, "confidence": 0.0, "confidence_basis": {}, "rationale": "", "notices": [],
    "problem": None,
}  # fmt: skip
