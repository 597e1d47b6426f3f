"""Agent 4b, finding reader: what a study found, as one relation with its PMID and population.

A research question ("Can medical students contribute to quality assurance in day surgery?") is
settled by a paper's finding, not by an entity's facts: the relation scorer reads hierarchy and
drug facts off evidence, this agent reads the one result of the paper the answer rests on
("medical students improves quality assurance programmes", studied in day-surgery patients).
It is grounded like every learned relation: the quoted sentence is in the abstract, the abstract
names every word of both ends, neither end is generic; confidence = score / 10 x the model's
measured extraction reliability. The sentence and the population become the relation's description.
An end that contains a question entity's name ("quality assurance programmes in day surgery" holds
"quality assurance") is written as that entity, so the next asking of the question reaches it.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from amg.agents.structured import Usage, ask
from amg.prompts import load
from amg.tools.kg.grounding import is_generic
from amg.tools.kg.records import EvidenceRecord, RelationRecord
from amg.tools.kg.schema import FINDINGS, normalize_key, relation_type, score_to_confidence
from amg.tools.kg.store import ExpansionWrites
from amg.tools.literature.words import query_words

ABSTRACT_CHARS = 900  # the conclusion and the opening: ~250 tokens, read at ~20 tokens/s on the 1.5B here
FINDING_NAMES = tuple(name for r in FINDINGS for name in dict.fromkeys((r.name, r.inverse)))
FINDING_LIST = "\n".join(f"  - {r.name}" + (f" ({r.hint})" if r.hint else "") for r in FINDINGS)
_FINDING_TYPES = {r.name for r in FINDINGS}


class StudyFinding(BaseModel):
    """The study's main finding: "<subject> <relation> <object>" in <population>."""

    subject: str
    relation: str = Field(json_schema_extra={"enum": list(FINDING_NAMES)})
    object: str
    population: str = ""
    sentence: str = Field(description="the abstract's sentence that states it, copied word for word")
    score: int = Field(ge=1, le=10)


def read_finding(question: str, entities: list[dict], paper: dict, text: str, llm, usage: Usage
                 ) -> tuple[StudyFinding | None, str | None]:  # fmt: skip
    """The model's reading of ``paper`` (an evidence record) for ``question``; or None and why not."""
    prompt = load("study_finding").format(
        question=question, entities=", ".join(e["name"] for e in entities) or "(none named)",
        title=paper.get("title") or "", abstract=text[:ABSTRACT_CHARS], relations=FINDING_LIST,
    )  # fmt: skip
    reply = ask(llm, StudyFinding, prompt, usage)
    return (reply, None) if reply is not None else (None, "no usable finding")


def on_question_entity(name: str, entities: list[dict]) -> str:
    """``name``, or the longest question entity whose words it holds in order ("quality assurance" in
    "quality assurance programmes in day surgery")."""
    said = f" {normalize_key(name)} "
    held = [e["name"] for e in entities if normalize_key(e["name"]) and f" {normalize_key(e['name'])} " in said]
    return max(held, key=len) if held else name


def grounded_finding(finding: StudyFinding, paper: dict, text: str, reliability: float, model_name: str,
                     keep_score: int, entities: list[dict] = ()) -> tuple[RelationRecord | None, str | None]:  # fmt: skip
    """The finding as a relation to write, or None and why it may not be written."""
    rel_type, flipped = relation_type(finding.relation)
    if rel_type not in _FINDING_TYPES:
        return None, f"{finding.relation!r} is not a study finding"
    source, target = (finding.object, finding.subject) if flipped else (finding.subject, finding.object)
    whole = f"{paper.get('title') or ''} {text}"
    said = _words(whole)
    for name in (source, target):
        if is_generic(name):
            return None, f"{name!r} is not a specific subject or outcome"
        if not _words(name) <= said:
            return None, f"the abstract does not name {name!r}"
    source, target = (on_question_entity(n, list(entities)) for n in (source, target))
    sentence = " ".join(finding.sentence.split())
    if not sentence or f" {normalize_key(sentence)} " not in f" {normalize_key(whole)} ":
        return None, "its sentence is not in the abstract"
    if finding.score < keep_score:
        return None, f"scored {finding.score}, under {keep_score}"
    population = " ".join(finding.population.split())[:200]
    description = sentence[:500] + (f" [studied in: {population}]" if population else "")
    try:
        return RelationRecord(source, target, rel_type, round(score_to_confidence(finding.score) * reliability, 3),
                              [paper["id"]], finding.score, description, paper["kind"], model_name), None  # fmt: skip
    except ValueError as exc:
        return None, str(exc)


def _words(text: str) -> set[str]:
    """Content words, singular ("programmes" and "programme" are one)."""
    return {normalize_key(w) for w in query_words(text, limit=100_000)}


def learn_finding(question: str, entities: list[dict], paper: dict, text: str, llm, model_name: str,
                  reliability: float, store: ExpansionWrites, keep_score: int) -> dict:  # fmt: skip
    """Read ``paper``'s finding for ``question`` and write it with the paper; a state update."""
    usage = Usage()
    finding, problem = read_finding(question, entities, paper, text, llm, usage)
    record = None
    if finding is not None:
        record, problem = grounded_finding(finding, paper, text, reliability, model_name, keep_score, entities)
    if record is None:
        return {"new_relations": [], "refused": [f"finding of {paper['id']}: {problem}"], **usage.as_update()}
    store.upsert(evidence=[EvidenceRecord(**paper)], relations=[record],
                 supports=[(record.source, paper["id"]), (record.target, paper["id"])])  # fmt: skip
    new = {"source": record.source, "type": record.type, "target": record.target, "confidence": record.confidence,
           "evidence_ids": record.evidence_ids, "description": record.description}  # fmt: skip
    return {"new_relations": [new], "refused": [], **usage.as_update()}
