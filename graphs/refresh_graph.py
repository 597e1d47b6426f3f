"""The background refresh agent: re-check stale, frequently asked and borderline knowledge.

Candidates: entities asked about (``hits``) or learned online whose ``refreshed_at`` is older
than the TTL, and endpoints of learned relations whose confidence lies within 0.1 of tau.
For each, PubMed is searched for articles newer than the last refresh; relations are
re-scored (changes appended to their history with the evidence that caused them) and
relations now scored under the keep threshold are marked ``weakened``, never deleted.
A lock on each entity (in the graph) keeps two refreshers off the same entity.

When the data dir has a local PubMed index, each pass first keeps it current (graphs/literature_sync.py:
NLM's update files from ``AMG_PUBMED_MIRROR``, papers retracted or deleted marked in the graph with what
rests on them weakened) and then re-reads the papers revised since (graphs/literature_reread.py) beside
the entities.
"""

from __future__ import annotations

import os
import socket
from datetime import UTC, datetime, timedelta
from typing import Annotated

from typing_extensions import TypedDict

from amg.agents.relation_scorer import echo_sources
from amg.graphs.batch_graph import batch_graph, write_run_summary
from amg.graphs.expansion import expand
from amg.graphs.literature_reread import reread_paper
from amg.graphs.literature_sync import keep_current
from amg.graphs.run import Run, with_run
from amg.graphs.state import appended
from amg.tools.kg.audit import audit
from amg.tools.kg.records import iso_utc, utc_now
from amg.tools.kg.store.rows import RefreshCandidate

LOCK_MINUTES = 30
OWNER = f"{socket.gethostname()}:{os.getpid()}"


class RefreshState(TypedDict, total=False):
    limit: int
    candidates: list[dict]  # entities, and revised papers to re-read ({paper: ...})
    literature: dict  # what keeping the local index current did
    results: Annotated[list[dict], appended]
    summary: dict


@with_run
def pick(state: RefreshState, run: Run) -> dict:
    ctx = run.context
    res = run.resources
    store, limit = res.store, int(state.get("limit") or 20)
    literature = keep_current(res, ctx)
    papers = [{"key": p["id"], "name": p["id"], "paper": p, "why": "revised"} for p in store.reread_queue(limit)]
    stale_before = iso_utc(datetime.now(UTC) - timedelta(days=ctx.stale_days))
    chosen: dict[str, RefreshCandidate] = {}
    for row in store.refresh_candidates(stale_before, ctx.tau, limit):
        chosen.setdefault(row["key"], row)
    return {"candidates": [*papers, *list(chosen.values())[:limit]], "literature": literature}


@with_run
def refresh_entity(task: dict, run: Run) -> dict:
    ctx = run.context
    res = run.resources
    entity = task["entity"]
    if "paper" in entity:
        return {"results": [reread_paper(entity["paper"], res, ctx)]}
    if not res.store.claim(entity["key"], OWNER, LOCK_MINUTES):
        return {"results": [{"entity": entity["name"], "status": "skipped", "reason": "another refresher holds it"}]}
    try:
        since = (entity.get("since") or "1900-01-01")[:10].replace("-", "/")
        out = expand(entity, f"New findings about {entity['name']}", others=[entity], res=res, ctx=ctx, mindate=since)
        if out["degradations"] and not out["records"]:
            return {
                "results": [{"entity": entity["name"], "status": "failed", "reason": "; ".join(out["degradations"])}]
            }
        weakened = res.store.mark_weakened(out["weakened"], res.model_name)
        res.store.touch([entity["key"]], "refreshed_at")
        return {
            "results": [
                {
                    "entity": entity["name"],
                    "status": "refreshed",
                    "why": entity["why"],
                    "since": since,
                    "new_articles": len(out["records"]),
                    "relations_rescored": len(out["new_relations"]),
                    "relations_weakened": weakened,
                }
            ]
        }
    finally:
        res.store.release(entity["key"], OWNER)


@with_run
def summarize(state: RefreshState, run: Run) -> dict:
    """The run's summary, after an audit that weakens whatever breaks the grounding rules."""
    ctx = run.context
    results = state.get("results", [])
    checked = audit(run.resources.store, echo_sources(), fix=True)
    summary = {
        "finished_at": utc_now(),
        "candidates": sum("paper" not in c for c in state.get("candidates", [])),  # entities (papers: below)
        "refreshed": sum(r["status"] == "refreshed" for r in results),
        "papers_reread": [r for r in results if "paper" in r],
        "literature": state.get("literature", {}),
        "relations_rescored": sum(r.get("relations_rescored", 0) for r in results),
        "relations_weakened": sum(r.get("relations_weakened", 0) for r in results),
        "audit": {"violations": len(checked.violations), "weakened": checked.fixed},
        "results": results,
    }
    write_run_summary(ctx, "refresh", summary)
    return {"summary": summary}


graph = batch_graph(
    RefreshState, pick, work=refresh_entity, summarize=summarize, items_key="candidates", name="AMG refresh"
)
