"""Agent 7, answer synthesizer: the answer, a confidence, and citations that resolve to evidence.

Confidence = stated x (1/2 + 1/2 x support), where ``stated`` is the model's own
confidence in [0, 1] and ``support`` is the best path confidence in the traversed
subgraph among paths backed by a cited evidence item (1.0 for evidence fetched for a
question entity this run; 0 when nothing is cited). An uncited answer is at most 0.5.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Literal

from pydantic import BaseModel, Field, create_model, field_validator

from agents.reasoner import format_options
from agents.structured import Usage, ask
from prompts import load

MAX_REASONING_CHARS = 3000  # keeps question + reasoning + evidence + a repair turn inside a 4k-token context
NO_KNOWLEDGE = ("I found no medical entities in this question that the knowledge graph knows about, so I cannot "
                "answer it from evidence.")  # fmt: skip


class Answer(BaseModel):
    """The final answer."""

    answer: str = Field(description="the answer in one or two sentences")
    option: str | None = Field(default=None, description="the chosen option letter, for multiple choice")
    confidence: float = Field(default=0.5, ge=0, le=1, description="0..1 that the answer is correct")
    citations: list[int] = Field(default_factory=list, description="evidence numbers that support the answer")
    rationale: str = Field(default="", description="a short justification")


def answer_schema(options: dict[str, str]) -> type[Answer]:
    """``Answer``, with a required ``option`` limited to the question's letters for multiple choice.

    Constrained servers (llama.cpp turns a forced tool's JSON schema into a grammar) then
    cannot leave the option out or name one that does not exist.
    """
    return _choice_schema(tuple(options)) if options else Answer


@cache
def _choice_schema(letters: tuple[str, ...]) -> type[Answer]:
    return create_model(
        "Answer", __base__=Answer, __doc__=Answer.__doc__,
        __validators__={"letter": field_validator("option", mode="before")(_letter)},
        option=(Literal[letters], Field(description=f"the chosen option letter: {', '.join(letters)}")),
    )  # fmt: skip


def _letter(cls, value: object) -> object:
    """"b", " B.", "(B)" all mean B."""
    return str(value).strip().strip(".()").upper()[:1] if isinstance(value, str) else value


def pick_option(option: str | None, answer: str, options: dict[str, str]) -> str | None:
    """The option letter the model meant, or None when it named none."""
    letter = (option or "").strip().strip(".()").upper()[:1]
    if letter in options:
        return letter
    match = re.search(r"\b(?:answer|option)\s*(?:is\s*)?:?\s*\(?([A-J])\b", answer, re.IGNORECASE)
    if match and match.group(1).upper() in options:
        return match.group(1).upper()
    lowered = answer.lower()
    hits = [k for k, text in options.items() if text and text.lower() in lowered]
    return hits[0] if len(hits) == 1 else None


def support_of(citations: list[int], evidence_index: list[dict], nodes: list[dict], fetched_ids: set[str]) -> float:
    cited_ids = {e["id"] for e in evidence_index if e["n"] in citations}
    best = 0.0
    for evidence_id in cited_ids:
        if evidence_id in fetched_ids:
            best = 1.0
        for node in nodes:
            if any(evidence_id in step["evidence_ids"] for step in node["steps"]):
                best = max(best, node["score"])
    return best


def synthesize(question: str, options: dict[str, str], reasoning: dict[str, str], evidence_index: list[dict],
               nodes: list[dict], fetched_ids: list[str], entities: list[dict], llm) -> dict:  # fmt: skip
    """State update: answer, option, confidence, citations (resolved), rationale, plus usage."""
    if not entities and not options:
        return {"answer": NO_KNOWLEDGE, "option": None, "confidence": 0.0, "citations": [], "rationale": ""}
    usage = Usage()
    evidence_text = "\n".join(
        f"[{e['n']}] ({e['kind']}{', ' + str(e['year']) if e.get('year') else ''}) {e.get('title', '')}: "
        f"{(e.get('snippet') or '')[:400]}"
        for e in evidence_index
    ) or "(none)"
    prompt = load("answer").format(question=question, options=format_options(options),
                                   reasoning="\n\n".join(reasoning.values())[:MAX_REASONING_CHARS] or "(none)",
                                   evidence=evidence_text)  # fmt: skip
    reply = ask(llm, answer_schema(options), prompt, usage)
    if reply is None:
        return {"answer": "The model did not return a usable answer.", "option": None, "confidence": 0.0,
                "citations": [], "rationale": "", "degradations": ["answer synthesizer: no structured answer"],
                **usage.as_update()}  # fmt: skip
    valid = [n for n in dict.fromkeys(reply.citations) if any(e["n"] == n for e in evidence_index)]
    support = support_of(valid, evidence_index, nodes, set(fetched_ids))
    option = pick_option(reply.option, reply.answer, options) if options else None
    answer = reply.answer.strip()
    if option and options:
        answer = f"{option}. {options[option]}" + (f" - {answer}" if answer and options[option] not in answer else "")
    citations = [
        {key: e.get(key) for key in ("n", "id", "kind", "pmid", "doi", "title", "year", "url")} | {"evidence_id": e["id"]}
        for e in evidence_index if e["n"] in valid
    ]  # fmt: skip
    update = {
        "answer": answer, "option": option, "citations": citations, "rationale": reply.rationale.strip(),
        "confidence": round(float(reply.confidence) * (0.5 + 0.5 * support), 3), **usage.as_update(),
    }  # fmt: skip
    if options and option is None:
        update["degradations"] = ["answer synthesizer: the model named no option"]
    return update
