"""Agent 1, query parser: the medical entities of a question, linked to the graph.

Offline vocabularies first (word n-grams found among graph entity names and aliases,
which hold the seeded HPO, ICD-10-CM and drug vocabularies), then the LLM for what
vocabularies miss; every LLM mention is linked (exact, alias, embedding) when possible.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from agents.structured import Usage, ask
from prompts import load
from tools.entity_linker import EntityLinker
from tools.kg_schema import entity_type, normalize_key


class Mention(BaseModel):
    name: str = Field(description="standard medical name")
    type: str = Field(description="disease, drug, phenotype, gene, procedure, anatomy, test, organism or other")


class Mentions(BaseModel):
    """Medical entities named in the question."""

    entities: list[Mention] = Field(default_factory=list)


def parse_query(question: str, options: dict[str, str], llm, linker: EntityLinker, max_entities: int) -> dict:
    """State update: ``entities`` ([{key, name, type, linked, how}]) plus usage."""
    usage = Usage()
    text = question + "\n" + "\n".join(options.values())
    spotted = linker.spot(text)
    reply = ask(llm, Mentions, load("entity_extraction").format(question=text, max_entities=max_entities), usage)
    degradations = [] if reply is not None else ["query parser: LLM gave no usable entity list; used vocabularies only"]
    from_llm = []
    for mention in (reply.entities if reply else [])[: max_entities * 2]:
        if not normalize_key(mention.name) or len(mention.name) > 200:
            continue
        found = linker.link(mention.name)
        if found:
            best = found[0]
            from_llm.append({"key": best.key, "name": best.name, "type": best.type, "linked": True, "how": best.how})
        else:
            from_llm.append({"key": normalize_key(mention.name), "name": mention.name.strip(),
                             "type": entity_type(mention.type), "linked": False, "how": "llm"})  # fmt: skip
    from_vocab = [{"key": c.key, "name": c.name, "type": c.type, "linked": True, "how": c.how} for c in spotted]
    vocab_keys = {e["key"] for e in from_vocab}
    # an unlinked mention that wraps a vocabulary entity ("first-line for type 2 diabetes") is that entity
    from_llm = [e for e in from_llm
                if e["key"] in vocab_keys or not any(f" {k} " in f" {e['key']} " for k in vocab_keys)]  # fmt: skip
    # both agree first, then the LLM's order, then vocabulary-only finds
    ranked = [e for e in from_llm if e["key"] in vocab_keys] + from_llm + from_vocab
    entities, seen = [], set()
    for entity in ranked:
        if entity["key"] not in seen:
            seen.add(entity["key"])
            entities.append(entity)
    return {"entities": entities[:max_entities], "degradations": degradations, **usage.as_update()}
