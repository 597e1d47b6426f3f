"""Agent 4, relation scorer: from an entity's evidence, a description and scored relations.

One structured LLM call per entity (the paper's rubric: 10 direct and unambiguous, 7-9
relevant, 4-6 weak, 1-3 none). Each relation is read from the entity ("metformin
has_adverse_effect diarrhea"), so the entity is always one end, and quotes the evidence
sentence that states it. Relations under the keep threshold are dropped. What is left is
written only with grounds (tools/kg/grounding.py): specific endpoints whose types fit, a
quoted sentence found in an evidence item that names both ends (the sentence is kept as the
relation's description), and a confidence of score / 10 x the model's measured extraction
reliability. A description that echoes the prompt is refused; a curated one is never replaced.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from pydantic import BaseModel, Field

from amg.agents.evidence_searcher import KeptEvidence
from amg.agents.learned import Learned
from amg.prompts import load, quote
from amg.tools.kg.grounding import (
    echoes,
    fitting_type,
    is_generic,
    listed_members,
    mentions,
    sentence_problem,
    signature_problem,
    with_sentence_before,
)
from amg.tools.kg.pipeline_types import Named
from amg.tools.kg.records import EntityProps, EntityRecord, EvidenceFields, EvidenceRecord, RelationRecord, Rescored
from amg.tools.kg.schema import (
    CURATED_ONLY,
    LEARNED_DESCRIPTION_CAP,
    RELATIONS,
    normalize_key,
    relation_type,
    score_to_confidence,
)
from amg.tools.kg.store.protocols import QAStore
from amg.tools.kg.store.rows import EntityRef
from amg.tools.llm.reader import Reader
from amg.tools.llm.structured import Usage, ask

# the prompt asks for the question's entities and five others; a bound in the tool schema also ends the
# grammar-constrained JSON of a small model that repeats relations until its token limit
MAX_RELATIONS = 10


# what a model may state, read from the entity: every type and its inverse, but the curated-only ones and a
# study's findings (agents/finding_reader/reader.py)
_STATED = tuple(r for r in RELATIONS if not r.curated_only and not r.finding)
EXTRACTED_RELATIONS = tuple(name for r in _STATED for name in dict.fromkeys((r.name, r.inverse)))
# the prompt's list of them: a line per type, its inverse and its hint
RELATION_LIST = "\n".join(
    f"- {', '.join(dict.fromkeys((r.name, r.inverse)))}" + (f" ({r.hint})" if r.hint else "") for r in _STATED
)


class ScoredRelation(BaseModel):
    """One thing the evidence states: "<the entity> <relation> <other>"."""

    sentence: str = Field(description="the evidence sentence that states it, copied word for word")
    relation: str = Field(json_schema_extra={"enum": list(EXTRACTED_RELATIONS)})
    other: str
    score: int = Field(ge=1, le=10)


class EntityAssessment(BaseModel):
    """What the evidence says about the entity."""

    description: str = ""
    description_score: int = Field(default=5, ge=1, le=10)
    # a schema bound only (no validation error): an endpoint without grammars is cut in grounded_relations
    relations: list[ScoredRelation] = Field(default_factory=list, json_schema_extra={"maxItems": MAX_RELATIONS})


@cache
def echo_sources() -> tuple[str, ...]:
    """Texts a model description must not merely repeat: the scoring prompt and the assessment schema."""
    return (load("relation_scoring").text, EntityAssessment.__doc__ or "", str(EntityAssessment.model_json_schema()))


def format_evidence(records: Sequence[EvidenceFields], texts: dict[str, str]) -> str:
    """Evidence as numbered quoted blocks (E1, E2, ...)."""
    blocks = []
    for number, record in enumerate(records, 1):
        label = f"E{number}"
        body = quote(texts.get(record["id"], record.get("snippet", "")))
        blocks.append(
            f'<evidence id="{label}" source="{quote(record["kind"])}" year="{quote(record.get("year") or "")}">\n'
            f"{body}\n</evidence>"
        )
    return "\n\n".join(blocks)


def assess(
    entity: EntityRef,
    question: str,
    *,
    others: Sequence[Named],
    records: Sequence[EvidenceFields],
    texts: dict[str, str],
    llm,
    usage: Usage,
) -> tuple[EntityAssessment | None, str]:
    """One structured call on the scoring prompt: the assessment (None if unusable) and the prompt."""
    block = format_evidence(records, texts)
    prompt = load("relation_scoring").format(
        entity=entity["name"],
        entity_type=entity["type"],
        evidence=block,
        question=question,
        relations=RELATION_LIST,
        related_entities=", ".join(o["name"] for o in others if o["key"] != entity["key"]) or "(none)",
    )
    return ask(llm, EntityAssessment, prompt=prompt, usage=usage), prompt


def score_relations(
    entity: EntityRef, question: str, *, others: Sequence[Named], evidence: KeptEvidence, reader: Reader, store: QAStore
) -> Learned:
    """Assess ``entity`` from ``evidence`` ({records, texts}) for ``question``; write what passes; a state update."""
    records = evidence.get("records", [])
    if not records:
        return {"new_relations": []}
    usage = Usage()
    reply, prompt = assess(
        entity, question, others=others, records=records, texts=evidence.get("texts", {}), llm=reader.llm, usage=usage
    )
    if reply is None:
        return {
            "new_relations": [],
            "degradations": [f"relation scorer: no usable assessment for {entity['name']}"],
            **usage.as_update(),
        }
    aliases, types = _known(store, [entity["name"], *(rel.other for rel in spelled_out(reply.relations))])
    types[entity["key"]] = entity["type"]
    relations, weakened, refused = grounded_relations(
        entity, reply, reader=reader, records=records, aliases=aliases, types=types
    )
    evidence_records = [EvidenceRecord(**r) for r in records]
    description = reply.description.strip()[:2000] or None
    if description and echoes(description, [prompt, *echo_sources()]):
        description, refused = None, refused + [f"description of {entity['name']} echoes the prompt"]
    names = [entity["name"], *aliases.get(normalize_key(entity["name"]), [])]
    if description and not any(mentions(f"{r.get('title') or ''} {r.get('snippet') or ''}", names) for r in records):
        description, refused = None, refused + [f"description of {entity['name']}: no evidence item names it"]
    confidence = min(score_to_confidence(reply.description_score) * reader.reliability, LEARNED_DESCRIPTION_CAP)
    store.upsert(
        entities=[
            EntityRecord(
                name=entity["name"],
                type=entity["type"],
                description=description,
                description_confidence=confidence if description else None,
                sources=sorted({r["kind"] for r in records}),
            )
        ],
        evidence=evidence_records,
        relations=relations,
        supports=[(entity["name"], r.id) for r in evidence_records],
    )
    store.touch([entity["key"]], "refreshed_at")
    new = [r.learned() for r in relations]
    return {"new_relations": new, "weakened": weakened, "refused": refused, **usage.as_update()}


def _known(store: QAStore, names: list[str]) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Per key of ``names`` the graph knows: the names it is known by (for the mention checks), and its type."""
    keys = {normalize_key(n) for n in names} - {""}
    found = store.lookup(sorted(keys))
    linked = store.entities(sorted({hits[0]["key"] for hits in found.values()}))
    aliases = {key: [hits[0]["name"], *_aliases(linked.get(hits[0]["key"]))] for key, hits in found.items()}
    return aliases, {key: hits[0].get("type") for key, hits in found.items()}


def _aliases(entity: EntityProps | None) -> list[str]:
    return (entity.get("aliases") if entity else None) or []


def grounded_relations(
    entity: EntityRef,
    reply: EntityAssessment,
    *,
    reader: Reader,
    records: Sequence[EvidenceFields],
    aliases: dict[str, list[str]],
    types: dict[str, str] | None = None,
) -> tuple[list[RelationRecord], list[Rescored], list[str]]:
    """Relations to write; (source, type, target, score, evidence) of those scored under the threshold; refusals."""
    texts = {r["id"]: f"{r.get('title') or ''} {r.get('snippet') or ''}" for r in records}  # as stored: auditable later
    kept: dict[tuple, RelationRecord] = {}
    weakened: list[Rescored] = []
    refused: list[str] = []
    kinds = {r["id"]: r["kind"] for r in records}
    normalized = {i: f" {normalize_key(text)} " for i, text in texts.items()}  # once, not per relation
    for rel in spelled_out(reply.relations):
        rel_type, flipped = relation_type(rel.relation)
        source, target = (rel.other, entity["name"]) if flipped else (entity["name"], rel.other)
        if rel_type in CURATED_ONLY:
            refused.append(f"{source} -{rel_type}-> {target}: only curated sources state {rel_type}")
            continue
        source_type, target_type = ((types or {}).get(normalize_key(n)) for n in (source, target))
        rel_type, swapped = fitting_type(rel_type, source_type, target_type=target_type, sentence=rel.sentence)
        if swapped:
            (source, source_type), (target, target_type) = (target, target_type), (source, source_type)
        cited, problem = _grounds(
            rel.sentence, source, target=target, texts=texts, normalized=normalized, aliases=aliases
        )
        problem = (
            problem or signature_problem(rel_type, source_type, target_type) or sentence_problem(rel_type, rel.sentence)
        )
        if problem:
            refused.append(f"{source} -{rel_type}-> {target}: {problem}")
            continue
        if rel.score < reader.keep_score:
            weakened.append(
                Rescored(
                    source=source,
                    type=rel_type,
                    target=target,
                    score=rel.score,
                    confidence=reader.confidence(rel.score),
                    evidence_ids=cited,
                )
            )
            continue
        origin = kinds[cited[0]] if len({kinds[c] for c in cited}) == 1 else "mixed"
        try:
            record = RelationRecord(
                source,
                target,
                type=rel_type,
                confidence=reader.confidence(rel.score),
                evidence_ids=cited,
                score_raw=rel.score,
                description=rel.sentence.strip()[:500],
                origin=origin,
                model=reader.model_name,
            )
        except ValueError:
            continue  # empty names, self-loops, oversized text: not a relation
        kept[(record.source_key, record.target_key, record.type)] = record
    return list(kept.values()), weakened, refused


def spelled_out(relations: list[ScoredRelation]) -> list[ScoredRelation]:
    """The first MAX_RELATIONS relations; one whose other end is a class its sentence spells out after a colon
    becomes one per member."""
    return [
        rel.model_copy(update={"other": member}) if member else rel
        for rel in relations[:MAX_RELATIONS]
        for member in listed_members(rel.other, rel.sentence) or [""]
    ]


def _grounds(
    sentence: str, source: str, *, target: str, texts: dict[str, str], normalized: dict[str, str], aliases: dict
) -> tuple[list[str], str | None]:
    """The evidence items that hold the quoted sentence and name both ends; or why the relation may not be written.

    The sentence itself must name one end ("Diarrhea is its most common adverse effect" names the other through
    "its"), so a relation is never read off an item that merely mentions both; an end it does not name is named in
    the item's sentence it is quoted from or the one right before, where such a reference points.
    """
    for name in (source, target):
        if is_generic(name):
            return [], f"{name!r} is not a specific medical entity"
    names = {n: [n, *aliases.get(normalize_key(n), [])] for n in (source, target)}
    quoted = normalize_key(sentence)
    cited = [i for i, text in normalized.items() if quoted and f" {quoted} " in text]
    if not cited:
        return [], "its sentence is not in the evidence"
    if not any(mentions(sentence, names[n]) for n in names):
        return [], "its sentence names neither entity"
    cited = [i for i in cited if all(mentions(texts[i], names[n]) for n in names)]
    if not cited:
        return [], "no evidence item names both entities"
    unnamed = [n for n in names if not mentions(sentence, names[n])]
    cited = [i for i in cited if all(mentions(with_sentence_before(texts[i], sentence), names[n]) for n in unnamed)]
    return cited, None if cited else f"neither its sentence nor the one before names {unnamed[0]!r}"
