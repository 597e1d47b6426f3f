"""Agent 4b, finding reader: what a study found, as one relation with its PMID and population.

A research question ("Can medical students contribute to quality assurance in day surgery?") is
settled by a paper's finding, not by an entity's facts: the relation scorer reads hierarchy and
drug facts off evidence, this agent reads the one result of the paper the answer rests on
("medical students improves quality assurance programmes", studied in day-surgery patients).
It is grounded like every learned relation: the quoted sentence is the abstract's own, the abstract
(or the question it was found for) names every word of both ends, neither end is generic; confidence =
score / 10 x the model's measured extraction reliability. Its relation agrees with the verdict the answer
read from the same paper (a "no" study's finding is never "improves"). The sentence and the population become
the relation's description. An end that contains a question entity's name ("quality assurance programmes in
day surgery" holds "quality assurance") is written as that entity, so the next asking of the question
reaches it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from pydantic import BaseModel, Field, create_model

from amg.agents.finding_reader.ends import (
    abbreviations_in,
    comparison_arm,
    content_words,
    end_named,
    head_of,
    named_words,
    on_question_entities,
    spelled_out,
)
from amg.agents.learned import Learned
from amg.prompts import load
from amg.tools.kg.grounding import is_generic
from amg.tools.kg.pipeline_types import Named
from amg.tools.kg.records import EntityRecord, EvidenceFields, EvidenceRecord, RelationRecord
from amg.tools.kg.schema import FINDINGS, normalize_key, relation_type
from amg.tools.kg.store.protocols import ExpansionWrites
from amg.tools.llm.reader import Reader
from amg.tools.llm.structured import Usage, ask

ABSTRACT_CHARS = 900  # the conclusion and the opening, ~250 tokens: short enough for a small local model
FINDING_NAMES = tuple(name for r in FINDINGS for name in dict.fromkeys((r.name, r.inverse)))
# the findings a study answering its question "yes" or "no" can state ("worsens" fits "Does X help?" no and
# "Is X a risk?" yes); on "maybe", or with no verdict, any
AGREES_WITH = {
    "yes": {"improves", "worsens", "predicts", "associated_with"},
    "no": {"worsens", "no_effect_on", "not_associated_with"},
}
_FINDING_TYPES = {r.name for r in FINDINGS}
COPIED_SHARE = 0.8
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\b[A-Z][A-Z ]{3,}:\s")  # a full stop, or a section label ("RESULTS: ")


class StudyFinding(BaseModel):
    """The study's main finding: "<subject> <relation> <object>" in <population>."""

    subject: str
    relation: str = Field(json_schema_extra={"enum": list(FINDING_NAMES)})
    object: str
    population: str = ""
    sentence: str = Field(description="the abstract's sentence that states it, copied word for word")
    score: int = Field(ge=1, le=10)


def read_finding(
    question: str, entities: Sequence[Named], *, paper: EvidenceFields, text: str, llm, usage: Usage, verdict: str = ""
) -> tuple[StudyFinding | None, str | None]:
    """The model's reading of ``paper`` (an evidence record) for ``question``; or None and why not.

    ``verdict``: the answer given to the question from this paper ("no"), so the finding's direction agrees with
    it: read alone, a small model can write "Papanicolaou smear improves patient adherence" of a paper it had
    just answered "no" for ("adherence was low ... no matter what type of follow-up was advised")."""
    prompt = load("study_finding").format(
        question=question,
        entities=", ".join(e["name"] for e in entities) or "(none named)",
        title=paper.get("title") or "",
        abstract=text[:ABSTRACT_CHARS],
        relations=finding_list(verdict),
        verdict=f"The answer this study gives the question: {verdict}." if verdict else "",
    )
    reply = ask(llm, finding_schema(verdict), prompt=prompt, usage=usage)
    return (reply, None) if reply is not None else (None, "no usable finding")


def _agreeing(verdict: str) -> set[str] | None:
    """The finding relations that agree with ``verdict`` ("no", "Yes"); None for any verdict else."""
    return AGREES_WITH.get(verdict.strip().lower())


def _offered(verdict: str) -> list:
    agree = _agreeing(verdict)
    return [r for r in FINDINGS if agree is None or r.name in agree]


def finding_list(verdict: str) -> str:
    """The finding relations offered to the model, with their hints: those that agree with ``verdict``."""
    return "\n".join(f"  - {r.name}" + (f" ({r.hint})" if r.hint else "") for r in _offered(verdict))


@cache
def finding_schema(verdict: str) -> type[StudyFinding]:
    """``StudyFinding`` whose relation may only be one that agrees with ``verdict``: told the verdict and shown
    only those, a small model still names some "no" studies' findings "improves" (the schema's enum binds)."""
    names = [name for r in _offered(verdict) for name in dict.fromkeys((r.name, r.inverse))]
    return create_model(
        "StudyFinding",
        __base__=StudyFinding,
        __doc__=StudyFinding.__doc__,
        relation=(str, Field(json_schema_extra={"enum": names})),
    )


def grounded_finding(
    finding: StudyFinding,
    paper: EvidenceFields,
    *,
    text: str,
    reader: Reader,
    entities: Sequence[Named] = (),
    question: str = "",
    verdict: str = "",
) -> tuple[RelationRecord | None, str | None]:
    """The finding as a relation to write, or None and why it may not be written.

    Its relation agrees with ``verdict``, the answer read from the same paper (of two readings that disagree,
    one is wrong); its ends are named by the abstract or by the question (the prompt asks for the question's
    terms), an abbreviation the abstract spells out written in full ("SGA": "small for gestational age"); its
    subject is what was tested, not the placebo, sham or control arm it was compared with; its sentence is the
    abstract's own: the one holding nearly all the words the model copied."""
    rel_type, flipped = relation_type(finding.relation)
    if rel_type not in _FINDING_TYPES:
        return None, f"{finding.relation!r} is not a study finding"
    agree = _agreeing(verdict)
    if agree is not None and rel_type not in agree:
        return None, f"{rel_type!r} disagrees with the answer read from the paper ({verdict})"
    abstract = f"{paper.get('title') or ''} {text}"
    defined = abbreviations_in(abstract)
    first, second = (finding.object, finding.subject) if flipped else (finding.subject, finding.object)
    ends = (head_of(spelled_out(first, defined)), head_of(spelled_out(second, defined)))
    if comparison_arm(ends[0]):  # "placebo improves pain", snapped onto the question's drug, would say the opposite
        return None, f"{ends[0]!r} is the comparison arm, not what was tested"
    said = content_words(f"{abstract} {question}")
    for name in ends:
        if not end_named(name, said):
            return None, f"neither the abstract nor the question names {name!r}"
    source, target = on_question_entities(ends, entities)
    for name in (source, target):
        if is_generic(name):
            return None, f"{name!r} is not a specific subject or outcome"
    sentence = sentence_in(finding.sentence, text) or sentence_naming(ends, text)
    if not sentence:
        return None, "its sentence is not in the abstract"
    if finding.score < reader.keep_score:
        return None, f"scored {finding.score}, under {reader.keep_score}"
    population = " ".join(finding.population.split())[:200]
    description = sentence[:500] + (f" [studied in: {population}]" if population else "")
    try:
        return RelationRecord(
            source,
            target,
            type=rel_type,
            confidence=reader.confidence(finding.score),
            evidence_ids=[paper["id"]],
            score_raw=finding.score,
            description=description,
            origin=paper["kind"],
            model=reader.model_name,
        ), None
    except ValueError as exc:
        return None, str(exc)


def sentence_in(copied: str, text: str) -> str | None:
    """The sentence of ``text`` the model meant by ``copied``; None when there is none.

    A copy of several sentences (small models sometimes copy two) means the first of them found in
    ``text``: it starts copying where the finding is stated ("The results cast doubt on LOC as a predictor ...",
    then a sentence of background)."""
    sentences = _sentences(text)
    found = (_one_sentence_in(piece, sentences) for piece in _SENTENCE_END.split(copied))
    return next((s for s in found if s), None)


def sentence_naming(ends: tuple[str, str], text: str) -> str | None:
    """The sentence of ``text`` naming the most words of both ``ends``, at least half of each; None when none does
    (for a copy that matches no sentence of the abstract)."""
    wanted = [named_words(name) for name in ends]
    naming = []
    for sentence in _sentences(text):
        said = content_words(sentence)
        held = [len(w & said) for w in wanted]
        if all(2 * h >= len(w) > 0 for h, w in zip(held, wanted)):
            naming.append((sum(held), sentence))
    return max(naming, key=lambda pair: pair[0])[1] if naming else None


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(" ".join(text.split())) if s.strip()]


def _one_sentence_in(copied: str, sentences: list[str]) -> str | None:
    """The sentence the model copied (or copied part of), else the one holding at least ``COPIED_SHARE`` of its
    words and little else (a small model drops or changes a word or two when it copies)."""
    wanted = named_words(copied)
    if not wanted or not sentences:
        return None
    exact = [s for s in sentences if f" {normalize_key(copied)} " in f" {normalize_key(s)} "]
    if exact:
        return exact[0]
    best = max(sentences, key=lambda s: len(wanted & content_words(s)))
    held = len(wanted & content_words(best))
    return best if held >= COPIED_SHARE * len(wanted) and held >= COPIED_SHARE * len(named_words(best)) else None


def learn_finding(
    question: str,
    entities: Sequence[Named],
    *,
    paper: EvidenceFields,
    text: str,
    reader: Reader,
    store: ExpansionWrites,
    verdict: str = "",
) -> Learned:
    """Read ``paper``'s finding for ``question`` (answered ``verdict`` from it) and write it with the paper."""
    usage = Usage()
    finding, problem = read_finding(
        question, entities, paper=paper, text=text, llm=reader.llm, usage=usage, verdict=verdict
    )
    record = None
    if finding is not None:
        record, problem = grounded_finding(
            finding, paper, text=text, reader=reader, entities=entities, question=question, verdict=verdict
        )
    asked = [(e["key"], paper["id"]) for e in entities]
    if record is None:  # the paper is kept, read for the question's entities: offline reads it again from there
        store.upsert(entities=graph_entities(entities), evidence=[EvidenceRecord(**paper)], supports=asked)
        return {"new_relations": [], "refused": [f"finding of {paper['id']}: {problem}"], **usage.as_update()}
    store.upsert(
        entities=graph_entities(entities),
        evidence=[EvidenceRecord(**paper)],
        relations=[record],
        supports=[(record.source, paper["id"]), (record.target, paper["id"]), *asked],
    )
    return {"new_relations": [record.learned("description")], "refused": [], **usage.as_update()}


def graph_entities(entities: Sequence[Named]) -> list[EntityRecord]:
    """The question's entities as the graph's nodes (created when missing; an existing one keeps its name); one
    linked under another key (an alias of a vocabulary's entity) is in the graph already."""
    named = [(EntityRecord(name=e["name"], type=e.get("type") or "other"), e["key"]) for e in entities if e.get("name")]
    return [record for record, key in named if record.key == key]
