"""Agent 7, answer synthesizer: the answer, a confidence, and citations that resolve to evidence.

Multiple choice: the confidence comes from the model's own probabilities. The log-probabilities
of the option token give a distribution over the letters; the model's letter prior is divided
out (which may change the chosen option); the chosen option's probability and the graph's
``support`` go through the model's calibration map (tools/llm/confidence_maps.py), fitted on
measured answers. Open questions: the model is asked whether its answer is correct, and the probability
of its "yes" (agents/answer_synthesizer/self_check.py) and ``support`` go through the model's map for open answers.
Without a map the probability is reported as it is (open: x (1/2 + 1/2 x support)) and marked
uncalibrated; without log-probabilities (an endpoint that does not return them):
confidence = stated x (1/2 + 1/2 x support), an uncited answer at most 0.5, also marked uncalibrated.
``support`` is the best confidence among paths and question-entity links backed by a cited
evidence item (for a text fetched this run, the model's measured precision reading evidence:
citing a text is not understanding it; 0 when nothing is cited;
a differential candidate's annotations count with the candidate's probability).
An open answer naming a candidate of the case's differential is at most as likely as that
candidate: a small model's stated 0.96 for a diagnosis the findings make unlikely is not a
promise the graph can keep. (An answer naming none may answer something else, a treatment say.)

A cited paper PubMed retracted or deleted (the evidence item's ``status``) stays among the citations, marked so,
but the confidence never rests on it: ``support`` counts only the items that stand, and an answer citing
nothing else says it rests on no standing evidence (``confidence_basis.withdrawn_citations`` names them).

Each citation carries its ``quote``, the cited item's sentence that states the claim and names the answer's
key entity (agents/answer_synthesizer/quotes.py); a cited item with no such sentence is dropped, and an answer left
citing nothing says it rests on the model's own knowledge (its support is then 0).

The model is asked for its answer, and the answer read, in agents/answer_synthesizer/answer_lines.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NotRequired, TypedDict

from amg.agents.answer_synthesizer.answer_lines import Reply, ask_answer
from amg.agents.answer_synthesizer.quotes import backing, key_entities, quoted
from amg.agents.answer_synthesizer.self_check import p_true
from amg.tools.kg.pipeline_types import (
    Asked,
    CandidateDiagnosis,
    Citation,
    EvidenceItem,
    Found,
    withdrawn,
    withdrawn_label,
)
from amg.tools.kg.schema import normalize_key
from amg.tools.llm.confidence_maps import CalibrationMap, debias
from amg.tools.llm.conversation import Turn
from amg.tools.llm.structured import Usage

MODEL_KNOWLEDGE = "the model's own knowledge: no cited item states the answer"
WITHDRAWN_ONLY = (
    "the model's own knowledge: the paper it cites was withdrawn ({papers}), so the answer does not rest on it"
)
NO_KNOWLEDGE = (
    "I found no medical entities in this question that the knowledge graph knows about, so I cannot "
    "answer it from evidence."
)
# How a confidence was made, as `amg ask --json` prints it: the measurements read, by name ("p_true", "support",
# ...), what they were read through ("source", "calibrated") and what the answer rests on ("rests_on", "cited").
# Which names are there depends on the way taken (this module's docstring; review.py for an open answer's).
Basis = dict[str, object]


class Answered(TypedDict):
    """The answer synthesizer's state update (``synthesize``, and ``review`` for an open answer)."""

    answer: str
    option: str | None
    confidence: float
    citations: list[Citation]
    confidence_basis: NotRequired[Basis]
    rationale: NotRequired[str]
    dialogue: NotRequired[list[Turn]]
    degradations: NotRequired[list[str]]
    llm_calls: NotRequired[int]
    tokens: NotRequired[int]


def scored_option(
    reply: Reply, probs: dict[str, float] | None, *, support: float, calibration: CalibrationMap | None
) -> tuple[str | None, float, Basis]:
    """(option, confidence, basis): see the module docstring for how the confidence is made."""
    if probs is None:
        confidence = reply.confidence * (0.5 + 0.5 * support)
        return (
            reply.option,
            confidence,
            {"source": "stated", "stated": reply.confidence, "support": support, "calibrated": False},
        )
    fair = debias(probs, calibration.letter_prior if calibration else None)
    option = max(fair, key=lambda letter: fair[letter])
    confidence = calibration(fair[option], support) if calibration else fair[option]
    basis: Basis = {
        "source": "letter probabilities",
        "letter_probs": {k: round(v, 4) for k, v in probs.items()},
        "p_option": round(fair[option], 4),
        "support": support,
        "stated": reply.confidence,
        "model_option": reply.option,
        "calibrated": calibration is not None,
    }
    return option, confidence, basis


def open_confidence(
    reply: Reply, p_yes: float | None, *, support: float, calibration: CalibrationMap | None
) -> tuple[float, Basis]:
    """(confidence, basis) of an open answer: see the module docstring. The map names the probability it
    reads (``about["feature"]``: ``p_true``, the default, or ``p_answer``, the answer's likelihood)."""
    measured = {"p_true": p_yes, "p_answer": reply.likelihood}
    feature = (calibration.about.get("feature") if calibration else None) or "p_true"
    p = measured[feature]
    if p is None:
        return scored_option(reply, None, support=support, calibration=None)[1:]
    confidence = calibration(p, support) if calibration else p * (0.5 + 0.5 * support)
    return confidence, {
        "source": "verification probability" if feature == "p_true" else "answer likelihood",
        **{k: round(v, 4) for k, v in measured.items() if v is not None},
        "support": support,
        "stated": reply.confidence,
        "calibrated": calibration is not None,
    }


def bounded_by_differential(
    answer: str, confidence: float, differential: Sequence[CandidateDiagnosis]
) -> tuple[float, Basis]:
    """The confidence of an open answer to a case, at most the probability of the candidate it names."""
    said = f" {normalize_key(answer)} "
    named = [
        c for c in differential if any(f" {normalize_key(n)} " in said for n in [c["name"], *c.get("subtypes", [])])
    ]
    if not named:
        return confidence, {}
    bound = max(c["probability"] for c in named)
    return min(confidence, bound), {"differential_bound": round(bound, 4), "named_candidate": named[0]["name"]}


def support_of(
    citations: list[int],
    evidence_index: list[EvidenceItem],
    *,
    backed: list[tuple[float, list[str]]],
    fetched_ids: set[str],
    reading: float = 1.0,
) -> float:
    """The best support among the cited evidence that stands (not retracted or deleted): the confidence of what it
    backs (``backed``: a path's, a link's or a candidate's, with its evidence ids), or ``reading`` for a text
    fetched this run."""
    cited_ids = {e["id"] for e in evidence_index if e["n"] in citations and not withdrawn(e)}
    best = 0.0
    for evidence_id in cited_ids:
        if evidence_id in fetched_ids:
            best = max(best, reading)
        best = max([best, *(confidence for confidence, ids in backed if evidence_id in ids)])
    return best


def cited_items(evidence_index: list[EvidenceItem], cited: list[int], quotes: dict[int, str]) -> list[Citation]:
    """The evidence items numbered ``cited``, as citations with the sentence each is cited for."""
    return [_citation(e, quotes[e["n"]]) for e in evidence_index if e["n"] in cited]


def _citation(e: EvidenceItem, quote: str) -> Citation:
    citation = Citation(
        n=e["n"],
        id=e["id"],
        kind=e["kind"],
        pmid=e.get("pmid"),
        doi=e.get("doi"),
        title=e.get("title"),
        year=e.get("year"),
        url=e.get("url"),
        evidence_id=e["id"],
        quote=quote,
    )
    if withdrawn(e):
        citation["status"] = e["status"]
    return citation


def synthesize(
    asked: Asked,
    found: Found,
    *,
    llm,
    calibration: CalibrationMap | None = None,
    reading: float = 1.0,
    preface: str = "",
    rests_on: Sequence[int] = (),
) -> Answered:
    """State update: answer, option, confidence (and its basis), citations (resolved), the conversation, usage.

    ``reading``: the support of a text fetched this run, the model's measured precision reading evidence
    (its relation-extraction precision; 1.0 would mean a text cited is a text understood); ``preface``: what the
    answer reads first when no reasoning turn precedes it (a research question's studies); ``rests_on``: the
    evidence numbers cited when the reply cites none (the studies a research question's answer read, which a
    small model often leaves uncited)."""
    question, options, dialogue, entities = asked.question, asked.options, asked.dialogue, asked.entities
    evidence_index, nodes, links, differential = found.evidence_index, found.nodes, found.links, found.differential
    fetched_ids = found.fetched_ids
    if not entities and not options and not evidence_index:
        return {"answer": NO_KNOWLEDGE, "option": None, "confidence": 0.0, "citations": [], "rationale": ""}
    usage = Usage()
    reply, dialogue, probs = ask_answer(llm, dialogue, question=question, options=options, usage=usage, preface=preface)
    if reply is None:
        return {
            "answer": "The model did not return a usable answer.",
            "option": None,
            "confidence": 0.0,
            "citations": [],
            "dialogue": dialogue,
            "degradations": ["answer synthesizer: no usable answer" + (" (no option named)" if options else "")],
            **usage.as_update(),
        }
    claim = f"{reply.option}. {options[reply.option]}" if reply.option else reply.answer
    quotes = quoted(
        reply.citations,
        evidence_index,
        steps=backing(nodes, links, differential),
        keys=key_entities(claim, entities, nodes),
        answer=claim,
        question=question,
        read=rests_on,
    )
    said = [n for n in reply.citations if n in quotes]
    valid = said or [n for n in rests_on if n in quotes]
    backed = [
        *((n["score"], [i for step in n["steps"] for i in step["evidence_ids"]]) for n in nodes),
        *((x["confidence"], x["evidence_ids"]) for x in links),
        *((c["probability"], c.get("evidence_ids", [])) for c in differential),
    ]
    support = support_of(valid, evidence_index, backed=backed, fetched_ids=set(fetched_ids), reading=reading)
    if options:
        option, confidence, basis = scored_option(reply, probs, support=support, calibration=calibration)
    else:
        option, (confidence, basis) = (
            None,
            open_confidence(reply, p_true(llm, dialogue, usage), support=support, calibration=calibration),
        )
    if valid and not said:
        basis["cited"] = "the studies read (the reply cited none)"
    unquoted = [n for n in reply.citations if n not in quotes and any(e["n"] == n for e in evidence_index)]
    if unquoted:
        basis["dropped_citations"] = unquoted  # no sentence of theirs names the answer's key entity
    gone = [e for e in evidence_index if e["n"] in valid and withdrawn(e)]
    if gone:
        basis["withdrawn_citations"] = [{"n": e["n"], "id": e["id"], "status": e["status"]} for e in gone]
    if not valid:
        basis["rests_on"] = MODEL_KNOWLEDGE
    elif len(gone) == len(valid):
        basis["rests_on"] = WITHDRAWN_ONLY.format(papers=", ".join(withdrawn_label(e) for e in gone))
    answer = f"{option}. {options[option]}" if option else reply.answer
    if not options:
        confidence, bounded = bounded_by_differential(answer, confidence, list(differential))
        basis.update(bounded)
    return {
        "answer": answer,
        "option": option,
        "citations": cited_items(evidence_index, valid, quotes),
        "dialogue": dialogue,
        "confidence": round(confidence, 3),
        "confidence_basis": basis,
        **usage.as_update(),
    }
