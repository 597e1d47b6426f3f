"""Agent 6, reasoner: chain of thought per question entity over its traversed subgraph.

Builds the numbered evidence list the answer cites, then reasons over each entity's
description and paths (the paper's c_i): all entities in one call by default, one call
per entity in paper-faithful mode.
"""

from __future__ import annotations

from agents.structured import Usage, say
from prompts import load
from tools.graph_store import Neo4jGraphStore

MAX_EVIDENCE = 12
MAX_VOCABULARY = 4
MAX_PATHS_PER_ENTITY = 8
REASONING_TOKENS = 120  # per call: a chain of thought, not an essay (generation dominates local latency)


def number_evidence(nodes: list[dict], fetched_ids: list[str], store: Neo4jGraphStore) -> list[dict]:
    """The evidence the answer may cite, numbered from 1.

    Evidence fetched for this question first, then literature behind the strongest paths,
    then at most a few curated-vocabulary entries (structure, rarely what a question asks).
    """
    on_paths: list[str] = []
    for node in sorted(nodes, key=lambda n: -n["score"]):
        for step in node["steps"]:
            on_paths.extend(step["evidence_ids"])
    candidates = list(dict.fromkeys(fetched_ids + on_paths))
    found = {e["id"]: e for e in store.evidence(candidates)} if candidates else {}
    literature = [i for i in candidates if i in found and found[i]["kind"] != "vocabulary"]
    vocabulary = [i for i in candidates if i in found and found[i]["kind"] == "vocabulary"][:MAX_VOCABULARY]
    chosen = (literature + vocabulary)[:MAX_EVIDENCE]
    return [{"n": n, **found[i]} for n, i in enumerate(chosen, 1)]


def entity_contexts(entities: list[dict], nodes: list[dict], evidence_index: list[dict]) -> dict[str, str]:
    """Per question entity, its description and paths with evidence numbers."""
    number = {e["id"]: e["n"] for e in evidence_index}
    by_seed: dict[str, list[dict]] = {}
    for node in nodes:
        by_seed.setdefault(node["seed"], []).append(node)
    contexts = {}
    for entity in entities:
        seed_nodes = by_seed.get(entity["name"], [])
        own = next((n for n in seed_nodes if n["depth"] == 0), None)
        lines = [f"Entity: {entity['name']} ({entity['type']})"]
        if own and own.get("description"):
            lines.append(f"Description: {own['description']}")
        paths = sorted((n for n in seed_nodes if n["depth"] > 0), key=lambda n: -n["score"])[:MAX_PATHS_PER_ENTITY]
        for node in paths:
            refs = sorted({number[i] for s in node["steps"] for i in s["evidence_ids"] if i in number})
            lines.append(f"- {node['path']}" + (" " + "".join(f"[{r}]" for r in refs) if refs else ""))
        if len(lines) == 1:
            lines.append("- (nothing in the knowledge graph)")
        contexts[entity["name"]] = "\n".join(lines)
    return contexts


def format_options(options: dict[str, str]) -> str:
    return "\n".join(f"{letter}. {text}" for letter, text in options.items()) if options else "(open question)"


def reason(question: str, options: dict[str, str], entities: list[dict], nodes: list[dict], evidence_index: list[dict],
           llm, per_entity: bool) -> dict:  # fmt: skip
    """State update: ``reasoning`` ({entity: text}) plus usage."""
    usage = Usage()
    contexts = entity_contexts(entities, nodes, evidence_index)
    prompt = load("reasoning")
    if per_entity:
        reasoning = {name: say(llm, prompt.format(question=question, options=format_options(options), context=ctx), usage,
                               REASONING_TOKENS)
                     for name, ctx in contexts.items()}  # fmt: skip
    else:
        joined = "\n\n".join(contexts.values()) or "(no entities)"
        reasoning = {"all": say(llm, prompt.format(question=question, options=format_options(options),
                                                   context=joined), usage, REASONING_TOKENS)}  # fmt: skip
    return {"reasoning": reasoning, **usage.as_update()}
