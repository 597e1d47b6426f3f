"""Ablation answerers for evaluation, on the same backbone and answer format as AMG: closed-book,
CoT, and RAG (MedRAG-style: the question's top snippets, read, then answered; no graph). The full graph
is the ``kg`` method (the QA graph itself)."""

from __future__ import annotations

from amg.agents.answer_synthesizer.answer_lines import ask_answer
from amg.agents.answer_synthesizer.synthesizer import scored_option
from amg.agents.reasoner import think_alone
from amg.prompts import load
from amg.tools.evidence.finder import EvidenceFinder
from amg.tools.llm.confidence_maps import CalibrationMap
from amg.tools.llm.structured import Usage


def _result(answered: tuple, usage: Usage, calibration: CalibrationMap | None) -> dict:
    reply, _, probs = answered
    if reply is None:
        return {"option": None, "confidence": 0.0, **usage.as_update()}
    option, confidence, basis = scored_option(reply, probs, support=0.0, calibration=calibration)
    answer = f"{option}. {reply.answer}" if option else reply.answer
    return {
        "option": option,
        "answer": answer,
        "confidence": confidence,
        "confidence_basis": basis,
        **usage.as_update(),
    }


def closed_book(question: str, options: dict[str, str], llm, calibration: CalibrationMap | None = None) -> dict:
    usage = Usage()
    return _result(ask_answer(llm, [], question=question, options=options, usage=usage), usage, calibration)


def chain_of_thought(question: str, options: dict[str, str], llm, calibration: CalibrationMap | None = None) -> dict:
    usage = Usage()
    return _result(
        ask_answer(
            llm, think_alone(question, options, llm=llm, usage=usage), question=question, options=options, usage=usage
        ),
        usage,
        calibration,
    )


def retrieval(
    question: str,
    options: dict[str, str],
    llm,
    finder: EvidenceFinder,
    query: str,
    source: str,
    k: int = 3,
    chars: int = 500,
    calibration: CalibrationMap | None = None,
) -> dict:
    """Answer after reading the top ``k`` of ``source`` ("pubmed": the literature index, its conclusions first;
    "textbook": passages) for ``query``, ``chars`` of each; what it read and cited, as evidence ids."""
    usage = Usage()
    found = finder.find_evidence(query, [source], k=k)
    lines = "\n".join(
        f"[{n}] ({r.kind}{', ' + str(r.year) if r.year else ''}) {r.title}: "
        f"{' '.join(found.texts[r.id].split())[:chars]}"
        for n, r in enumerate(found.records, 1)
    )
    preface = load("evidence").format(evidence=lines or "(none)") + "\n"
    answered = ask_answer(llm, [], question=question, options=options, usage=usage, preface=preface)
    cited = [
        found.records[n - 1].id for n in (answered[0].citations if answered[0] else []) if 0 < n <= len(found.records)
    ]
    return {
        **_result(answered, usage, calibration),
        "fetched_ids": [r.id for r in found.records],
        "cited_ids": cited,
        "degradations": found.degradations,
    }
