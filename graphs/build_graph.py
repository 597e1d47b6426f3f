"""The KG build graph: topics -> entities -> (evidence, scored relations) per entity -> summary.

Items are entities. Each finished item is recorded in the graph (``BuildItem``), so a
re-run skips what is done and an interrupted run resumes. An item whose evidence sources
failed is not marked done and is reported with the reason.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

from typing_extensions import TypedDict

from amg.graphs.batch_graph import batch_graph, write_run_summary
from amg.graphs.expansion import expand
from amg.graphs.run import Run, with_run
from amg.graphs.state import appended
from amg.tools.kg.records import utc_now
from amg.tools.kg.schema import entity_type, normalize_key, validate_name
from amg.tools.kg.store.rows import EntityRef
from amg.tools.text_files import read_user_text

MAX_TOPICS = 10_000


def read_topics(path: Path) -> list[str]:
    """Topic names from a text file (one a line) or a question set (JSONL with "question")."""
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    lines = read_user_text(path, "give a text file with one topic a line, or a JSONL question set").splitlines()
    if path.suffix == ".jsonl":
        texts = []
        for line in lines:
            try:
                texts.append(str(json.loads(line).get("question", "")))
            except (ValueError, AttributeError):
                continue
        return [t for t in texts if t.strip()]
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


class BuildState(TypedDict, total=False):
    topics: list[str]
    questions: list[str]  # parsed into entities first
    force: bool
    planned: list[dict]
    skipped: int
    results: Annotated[list[dict], appended]
    summary: dict


@with_run
def plan(state: BuildState, run: Run) -> dict:
    ctx = run.context
    res = run.resources
    entities: dict[str, EntityRef] = {}
    problems: list[dict[str, str]] = []
    for topic in state.get("topics", [])[:MAX_TOPICS]:
        try:
            name = validate_name(topic)
        except ValueError as exc:
            problems.append({"entity": topic[:60], "status": "rejected", "reason": str(exc)})
            continue
        linked = res.linker.link(name)
        entity = (
            EntityRef(key=linked[0].key, name=linked[0].name, type=linked[0].type)
            if linked
            else EntityRef(key=normalize_key(name), name=name, type=entity_type(None))
        )
        entities.setdefault(entity["key"], entity)
    if state.get("questions"):
        from amg.agents.query_parser import parse_query

        for question in state["questions"][:MAX_TOPICS]:
            for found in parse_query(question, {}, llm=res.llm, linker=res.linker, max_entities=ctx.max_entities)[
                "entities"
            ]:
                entities.setdefault(found["key"], EntityRef(key=found["key"], name=found["name"], type=found["type"]))
    done = set() if state.get("force") else res.store.built_keys(list(entities))
    todo = [e for k, e in entities.items() if k not in done]
    return {"planned": todo, "skipped": len(done), "results": problems}


@with_run
def build_entity(task: dict, run: Run) -> dict:
    ctx = run.context
    res = run.resources
    entity = task["entity"]
    try:
        out = expand(entity, f"What is known about {entity['name']}?", others=[entity], res=res, ctx=ctx)
    except Exception as exc:  # one item failing must not stop the others; it is reported and retried next run
        return {"results": [{"entity": entity["name"], "status": "failed", "reason": f"{type(exc).__name__}: {exc}"}]}
    if not out["records"]:
        reason = "; ".join(out["degradations"]) or "no evidence found"
        return {"results": [{"entity": entity["name"], "status": "failed", "reason": reason}]}
    res.store.mark_built(entity["key"], len(out["new_relations"]))
    return {
        "results": [
            {
                "entity": entity["name"],
                "status": "done",
                "evidence": len(out["records"]),
                "relations": len(out["new_relations"]),
                "refused": out["refused"],
                "llm_calls": out["llm_calls"],
            }
        ]
    }


@with_run
def summarize(state: BuildState, run: Run) -> dict:
    ctx = run.context
    results = state.get("results", [])
    summary = {
        "finished_at": utc_now(),
        "entities_built": sum(r["status"] == "done" for r in results),
        "skipped_already_done": state.get("skipped", 0),
        "relations_added": sum(r.get("relations", 0) for r in results),
        "evidence_stored": sum(r.get("evidence", 0) for r in results),
        "relations_refused": sum(len(r.get("refused", [])) for r in results),
        "failures": [r for r in results if r["status"] != "done"],
    }
    write_run_summary(ctx, "build", summary)
    return {"summary": summary}


graph = batch_graph(BuildState, plan, work=build_entity, summarize=summarize, items_key="planned", name="AMG KG build")
