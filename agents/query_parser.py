"""Agent 1, query parser: the medical entities of a question, linked to the graph.

Offline vocabularies first (word n-grams found among graph entity names and aliases,
which hold the seeded HPO, ICD-10-CM and drug vocabularies, and the HPO phenotypes the question
states in other words: "dislocated lenses" for ectopia lentis, tools/phenotypes), then the LLM for what
vocabularies miss; every LLM mention is linked (exact, alias, embedding) when possible.

The LLM answers in plain "term | type" lines rather than a JSON tool call: on a small local
model that is ~5 tokens per entity instead of ~15, without grammar-constrained decoding.
Lines that do not look like an entity (sentences, chatter, the format's own words) are ignored.
The call opens the question's conversation (tools/llm/conversation.py). With the ``vocabulary``
parser there is no call: the entities are the vocabulary entities the question names. The
``auto`` parser does the same, and asks the LLM only when the vocabularies find nothing.
"""

from __future__ import annotations

import re

from amg.prompts import load
from amg.tools.kg.linking import EntityLinker
from amg.tools.kg.pipeline_types import QuestionEntity
from amg.tools.kg.schema import (
    ENTITY_TYPE_ALIASES,
    ENTITY_TYPES,
    entity_type,
    normalize_key,
)
from amg.tools.llm.conversation import Turn, request, talk
from amg.tools.llm.structured import Usage, UsageUpdate
from amg.tools.phenotypes.lexicon import hpo_lexicon
from amg.tools.phenotypes.loose import loosely_read, misread, near_the_case
from amg.tools.phenotypes.recognizer import recognise
from amg.tools.question_kinds import describes_a_patient
from amg.tools.vectors.embeddings import embed

TOKENS_PER_ENTITY = 12
LAY_TOKENS = 60  # a few clinical terms, one a line
LAY_BELOW = 2  # a case in whose text the recogniser reads fewer findings surely (tools/phenotypes/loose.py) is read
# by the model too (a differential needs two)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")
_NOT_A_NAME = re.compile(r"[{}\[\]<>=]|^[^A-Za-z]*$")
# the format's own words, echoed back by small models ("term | type", "drugs | drug")
_PLACEHOLDERS = {"name", "term", "type", "entity", *ENTITY_TYPES, *ENTITY_TYPE_ALIASES}


class ParsedQuery(UsageUpdate):
    """The query parser's state update: the question's entities, the conversation it opened, what went wrong."""

    entities: list[QuestionEntity]
    dialogue: list[Turn]
    degradations: list[str]


def read_mentions(reply: str) -> list[tuple[str, str]]:
    """(name, type) pairs from "term | type" lines; a bare short line is a name of type other."""
    mentions = []
    for line in reply.splitlines():
        name, sep, kind = _BULLET.sub("", line).partition("|")
        name = name.strip().strip("`\"'*").strip()
        words = name.split()
        if (
            not words
            or len(words) > 8
            or len(name) > 120
            or _NOT_A_NAME.search(name)
            or name.lower().rstrip("s") in _PLACEHOLDERS
            or (not sep and name.endswith((".", ":", "?", "!")))
        ):
            continue
        mentions.append((name, kind.strip().strip("`*").lower() if sep else "other"))
    return mentions


def spot_entities(text: str, linker: EntityLinker) -> list[QuestionEntity]:
    """The vocabulary entities ``text`` names (no model call)."""
    return [QuestionEntity(key=c.key, name=c.name, type=c.type, linked=True, how=c.how) for c in linker.spot(text)]


def phenotype_entities(text: str, linker: EntityLinker) -> tuple[list[QuestionEntity], set[str], dict[str, str]]:
    """The HPO phenotypes ``text`` states that the graph holds, as entities, the keys of those it negates, and the
    words of those it reads loosely (tools/phenotypes/loose.py)."""
    mentions = recognise(text)
    said = [m for m in mentions if not m.negated]
    held = linker.store.lookup([m.key for m in said]) if said else {}
    stated = [
        QuestionEntity(key=m.key, name=m.name, type="phenotype", linked=True, how="phenotype")
        for m in said
        if any(hit["key"] == m.key for hit in held.get(m.key, []))
    ]
    return stated, {m.key for m in mentions if m.negated}, loosely_read(mentions)


def lay_findings(question: str, llm, *, linker: EntityLinker, usage: Usage, negated: set[str]) -> list[QuestionEntity]:
    """The HPO phenotypes the graph holds that a case describes in everyday words ("her fingers are unusually long
    and thin"), as the model names them clinically ("arachnodactyly") and the recogniser reads its names; a
    finding the model names that the question negates, that the lexicon does not know, or none of whose names comes
    near anything the question says (tools/phenotypes/loose.py) is not added."""
    text = request([], question, options={}, text=load("lay_findings").format())
    reply, _ = talk(llm, [], text=text, usage=usage, max_tokens=LAY_TOKENS)
    named = [m for line in reply.splitlines() for m in recognise(line) if not m.negated and m.key not in negated]
    terms = hpo_lexicon().terms
    names = {m.key: [label for label, _ in terms[m.id].labels] for m in named if m.id in terms}
    near = near_the_case(question, names, embed=lambda texts: embed(linker.model_path, texts))
    named = [m for m in named if m.key in near]
    held = linker.store.lookup(sorted({m.key for m in named})) if named else {}
    found: dict[str, QuestionEntity] = {}
    for m in named:
        if any(hit["key"] == m.key for hit in held.get(m.key, [])):
            found.setdefault(m.key, QuestionEntity(key=m.key, name=m.name, type="phenotype", linked=True, how="lay"))
    return list(found.values())


def parse_query(
    question: str,
    options: dict[str, str],
    *,
    llm,
    linker: EntityLinker,
    max_entities: int,
    use_options: bool = True,
    parser: str = "llm",
    lay: bool = False,
) -> ParsedQuery:
    """State update: ``entities`` ([{key, name, type, linked, how}]), the opened conversation, usage.

    With ``use_options`` off, entities come from the question stem only: the model then sees
    the stem alone, and that conversation is not handed on (the reasoner needs the options). With ``lay`` (an open
    question, as a person types it) a case told in everyday words is also read by the model (``lay_findings``).
    """
    usage = Usage()
    shown = options if use_options else {}
    # "no fever": absent, for the differential, not a topic
    stated, negated, loose = phenotype_entities(question, linker)
    spotted = [
        e
        for e in spot_entities(question + "\n" + "\n".join(shown.values()), linker)
        if not (e["type"] == "phenotype" and e["key"] in negated)
    ]
    sure = [e for e in stated if e["key"] not in loose]
    if lay and parser != "vocabulary" and len(sure) < LAY_BELOW and describes_a_patient(question):
        # a case whose findings the lexicon cannot read surely: told in everyday words
        found = lay_findings(question, llm, linker=linker, usage=usage, negated=negated)
        wrong = misread(loose, found)  # "eyes look blue" read as Blue irides where the model reads blue sclerae
        stated = [e for e in stated if e["key"] not in wrong]
        said = {e["key"] for e in [*spotted, *stated]}
        stated += [e for e in found if e["key"] not in said]
    from_vocab = spotted + [e for e in stated if e["key"] not in {v["key"] for v in spotted}]
    if parser == "vocabulary" or (parser == "auto" and from_vocab):
        return {"entities": from_vocab[:max_entities], "dialogue": [], "degradations": [], **usage.as_update()}
    text = request(
        [],
        question,
        options=shown,
        text=load("entity_extraction").format(
            scope="the question and its options" if shown else "the question", max_entities=max_entities
        ),
    )
    reply, dialogue = talk(llm, [], text=text, usage=usage, max_tokens=TOKENS_PER_ENTITY * max_entities)
    mentions = read_mentions(reply)
    degradations = [] if mentions else ["query parser: the LLM named no entities; used vocabularies only"]
    from_llm: list[QuestionEntity] = []
    for name, kind in mentions[: max_entities * 2]:
        if not normalize_key(name):
            continue
        linked = linker.link(name)
        if linked:
            best = linked[0]
            from_llm.append(QuestionEntity(key=best.key, name=best.name, type=best.type, linked=True, how=best.how))
        else:
            from_llm.append(
                QuestionEntity(key=normalize_key(name), name=name, type=entity_type(kind), linked=False, how="llm")
            )
    vocab_keys = {e["key"] for e in from_vocab}
    # an unlinked mention that wraps a vocabulary entity ("first-line for type 2 diabetes") is that entity
    from_llm = [
        e for e in from_llm if e["key"] in vocab_keys or not any(f" {k} " in f" {e['key']} " for k in vocab_keys)
    ]
    # both agree first, then the LLM's order, then vocabulary-only finds
    ranked = [e for e in from_llm if e["key"] in vocab_keys] + from_llm + from_vocab
    entities: list[QuestionEntity] = []
    seen: set[str] = set()
    for entity in ranked:
        if entity["key"] not in seen:
            seen.add(entity["key"])
            entities.append(entity)
    return {
        "entities": entities[:max_entities],
        "dialogue": dialogue if shown == options else [],
        "degradations": degradations,
        **usage.as_update(),
    }
