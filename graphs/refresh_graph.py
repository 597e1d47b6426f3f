"""The background refresh agent: re-check stale, frequently asked and borderline knowledge.

Candidates: entities asked about (``hits``) or learned online whose ``refreshed_at`` is older
than the TTL, and endpoints of learned relations whose confidence lies within 0.1 of tau.
For each, PubMed is searched for articles newer than the last refresh; relations are
re-scored (changes appended to their history with the evidence that caused them) and
relations now scored under the keep threshold are marked ``weakened``, never deleted.
A lock on each entity (in the graph) keeps two refreshers off the same entity.
"""

from __future__ import annotations

import os
import socket
from datetime import datetime, timedelta, timezone
from typing import Annotated

from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from graphs.batch_graph import batch_graph, write_run_summary
from graphs.context import Context, run_context
from graphs.expansion import expand
from graphs.resources import resources_for
from graphs.state import appended
from tools.graph_records import utc_now

LOCK_MINUTES = 30
OWNER = f"{socket.gethostname()}:{os.getpid()}"


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class RefreshState(TypedDict, total=False):
    limit: int
    candidates: list[dict]
    results: Annotated[list[dict], appended]
    summary: dict


def pick(state: RefreshState, runtime: Runtime[Context]) -> dict:
    ctx = run_context(runtime)
    store, limit = resources_for(ctx).store, int(state.get("limit") or 20)
    stale_before = _iso(datetime.now(timezone.utc) - timedelta(days=ctx.stale_days))
    stale = store.read(
        """MATCH (e:Entity) WHERE e.refreshed_at < $stale
             AND (coalesce(e.hits, 0) > 0 OR any(s IN coalesce(e.sources, []) WHERE NOT s STARTS WITH 'vocabulary'))
           RETURN e.key AS key, e.name AS name, e.type AS type, e.refreshed_at AS since, 'stale' AS why
           ORDER BY coalesce(e.hits, 0) DESC, e.refreshed_at LIMIT $n""",
        stale=stale_before, n=limit,
    )  # fmt: skip
    borderline = store.read(
        """MATCH (a:Entity)-[r:RELATES]->(:Entity)
           WHERE abs(r.confidence - $tau) <= 0.1 AND NOT r.origin STARTS WITH 'vocabulary'
           RETURN DISTINCT a.key AS key, a.name AS name, a.type AS type, a.refreshed_at AS since, 'near tau' AS why
           LIMIT $n""",
        tau=ctx.tau, n=limit,
    )  # fmt: skip
    chosen: dict[str, dict] = {}
    for row in stale + borderline:
        chosen.setdefault(row["key"], row)
    return {"candidates": list(chosen.values())[:limit]}


def _claim(store, key: str) -> bool:
    expired = _iso(datetime.now(timezone.utc) - timedelta(minutes=LOCK_MINUTES))
    query = """MATCH (e:Entity {key: $key}) WHERE e.refresh_lock IS NULL OR e.refresh_lock < $expired
               SET e.refresh_lock = $now, e.refresh_owner = $me RETURN e.key AS key"""
    return bool(store.write(lambda tx: tx.run(query, key=key, expired=expired, now=utc_now(), me=OWNER).data()))


def _unclaim(store, key: str) -> None:
    query = "MATCH (e:Entity {key: $key}) WHERE e.refresh_owner = $me REMOVE e.refresh_lock, e.refresh_owner"
    store.write(lambda tx: tx.run(query, key=key, me=OWNER).consume())


def refresh_entity(task: dict, runtime: Runtime[Context]) -> dict:
    ctx = run_context(runtime)
    res = resources_for(ctx)
    entity = task["entity"]
    if not _claim(res.store, entity["key"]):
        return {"results": [{"entity": entity["name"], "status": "skipped", "reason": "another refresher holds it"}]}
    try:
        since = (entity.get("since") or "1900-01-01")[:10].replace("-", "/")
        out = expand(entity, f"New findings about {entity['name']}", [entity], res, ctx, mindate=since)
        if out["degradations"] and not out["records"]:
            return {"results": [{"entity": entity["name"], "status": "failed", "reason": "; ".join(out["degradations"])}]}
        weakened = res.store.mark_weakened(out["weakened"], res.model_name)
        res.store.touch([entity["key"]], "refreshed_at")
        return {"results": [{"entity": entity["name"], "status": "refreshed", "why": entity["why"], "since": since,
                             "new_articles": len(out["records"]), "relations_rescored": len(out["new_relations"]),
                             "relations_weakened": weakened}]}  # fmt: skip
    finally:
        _unclaim(res.store, entity["key"])


def summarize(state: RefreshState, runtime: Runtime[Context]) -> dict:
    ctx = run_context(runtime)
    results = state.get("results", [])
    summary = {"finished_at": utc_now(), "candidates": len(state.get("candidates", [])),
               "refreshed": sum(r["status"] == "refreshed" for r in results),
               "relations_rescored": sum(r.get("relations_rescored", 0) for r in results),
               "relations_weakened": sum(r.get("relations_weakened", 0) for r in results),
               "results": results}  # fmt: skip
    write_run_summary(ctx, "refresh", summary)
    return {"summary": summary}


graph = batch_graph(RefreshState, pick, refresh_entity, summarize, "candidates", "AMG refresh")
