"""Ablation answerers for evaluation, on the same backbone as AMG: closed-book, CoT, and RAG
(textbook passages, no graph). The full graph is the ``kg`` mode (the QA graph itself)."""

from __future__ import annotations

from agents.answer_synthesizer import Answer, answer_schema, pick_option
from agents.reasoner import format_options
from agents.structured import Usage, ask, say
from prompts import load
from tools.vector_store import PassageStore


def _result(reply: Answer | None, options: dict[str, str], usage: Usage) -> dict:
    if reply is None:
        return {"option": None, "confidence": 0.0, **usage.as_update()}
    return {"option": pick_option(reply.option, reply.answer, options), "confidence": float(reply.confidence),
            **usage.as_update()}  # fmt: skip


def closed_book(question: str, options: dict[str, str], llm) -> dict:
    usage = Usage()
    prompt = load("closed_book").format(question=question, options=format_options(options))
    return _result(ask(llm, answer_schema(options), prompt, usage), options, usage)


def chain_of_thought(question: str, options: dict[str, str], llm) -> dict:
    usage = Usage()
    reasoning = say(llm, load("reasoning").format(question=question, options=format_options(options),
                                                  context="(none: use your own medical knowledge)"), usage)  # fmt: skip
    prompt = load("answer").format(question=question, options=format_options(options), reasoning=reasoning,
                                   evidence="(none)")  # fmt: skip
    return _result(ask(llm, answer_schema(options), prompt, usage), options, usage)


def retrieval(question: str, options: dict[str, str], llm, passages: PassageStore, query: str, k: int = 4) -> dict:
    usage = Usage()
    found = passages.search(query, k=k)
    evidence = "\n".join(f"[{n}] ({p.source}) {' '.join(p.text.split())[:600]}" for n, p in enumerate(found, 1))
    prompt = load("answer").format(question=question, options=format_options(options), reasoning="(none)",
                                   evidence=evidence or "(none)")  # fmt: skip
    return {**_result(ask(llm, answer_schema(options), prompt, usage), options, usage), "passages": len(found)}
