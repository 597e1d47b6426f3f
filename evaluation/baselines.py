"""Ablation answerers for evaluation, on the same backbone and answer format as AMG: closed-book,
CoT, and RAG (textbook passages, no graph). The full graph is the ``kg`` mode (the QA graph itself)."""

from __future__ import annotations

from agents.answer_synthesizer import Reply, ask_answer
from agents.conversation import request, talk
from agents.reasoner import REASONING_TOKENS
from agents.structured import Usage
from prompts import load
from tools.evidence.passages import PassageStore


def _result(reply: Reply | None, usage: Usage) -> dict:
    if reply is None:
        return {"option": None, "confidence": 0.0, **usage.as_update()}
    return {"option": reply.option, "confidence": reply.confidence, **usage.as_update()}


def closed_book(question: str, options: dict[str, str], llm) -> dict:
    usage = Usage()
    return _result(ask_answer(llm, [], question, options, usage)[0], usage)


def chain_of_thought(question: str, options: dict[str, str], llm) -> dict:
    usage = Usage()
    thinking = load("reasoning").format(context="(none: use your own medical knowledge)",
                                        evidence=load("evidence").format(evidence="(none)"))  # fmt: skip
    _, dialogue = talk(llm, [], request([], question, options, thinking), usage, REASONING_TOKENS)
    return _result(ask_answer(llm, dialogue, question, options, usage)[0], usage)


def retrieval(question: str, options: dict[str, str], llm, passages: PassageStore, query: str, k: int = 4) -> dict:
    usage = Usage()
    found = passages.search(query, k=k)
    lines = "\n".join(f"[{n}] ({p.source}) {' '.join(p.text.split())[:600]}" for n, p in enumerate(found, 1))
    preface = load("evidence").format(evidence=lines or "(none)") + "\n"
    return {**_result(ask_answer(llm, [], question, options, usage, preface)[0], usage), "passages": len(found)}
