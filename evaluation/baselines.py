"""Ablation answerers for evaluation, on the same backbone and answer format as AMG: closed-book,
CoT, and RAG (textbook passages, no graph). The full graph is the ``kg`` method (the QA graph itself)."""

from __future__ import annotations

from amg.agents.answer_synthesizer import ask_answer, scored_option
from amg.agents.conversation import request, talk
from amg.agents.reasoner import REASONING_TOKENS
from amg.agents.structured import Usage
from amg.prompts import load
from amg.tools.evidence.passages import PassageStore
from amg.tools.llm.calibration import CalibrationMap


def _result(answered: tuple, usage: Usage, calibration: CalibrationMap | None) -> dict:
    reply, _, probs = answered
    if reply is None:
        return {"option": None, "confidence": 0.0, **usage.as_update()}
    option, confidence, basis = scored_option(reply, probs, 0.0, calibration)
    return {"option": option, "confidence": confidence, "confidence_basis": basis, **usage.as_update()}


def closed_book(question: str, options: dict[str, str], llm, calibration: CalibrationMap | None = None) -> dict:
    usage = Usage()
    return _result(ask_answer(llm, [], question, options, usage), usage, calibration)


def chain_of_thought(question: str, options: dict[str, str], llm, calibration: CalibrationMap | None = None) -> dict:
    usage = Usage()
    thinking = load("reasoning").format(context="(none: use your own medical knowledge)",
                                        evidence=load("evidence").format(evidence="(none)"))  # fmt: skip
    _, dialogue = talk(llm, [], request([], question, options, thinking), usage, REASONING_TOKENS)
    return _result(ask_answer(llm, dialogue, question, options, usage), usage, calibration)


def retrieval(question: str, options: dict[str, str], llm, passages: PassageStore, query: str, k: int = 4,
              calibration: CalibrationMap | None = None) -> dict:  # fmt: skip
    usage = Usage()
    found = passages.search(query, k=k)
    lines = "\n".join(f"[{n}] ({p.source}) {' '.join(p.text.split())[:600]}" for n, p in enumerate(found, 1))
    preface = load("evidence").format(evidence=lines or "(none)") + "\n"
    answered = ask_answer(llm, [], question, options, usage, preface)
    return {**_result(answered, usage, calibration), "passages": len(found)}
