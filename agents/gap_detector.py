"""Agent 2, KG lookup / gap detector: which question entities are missing, stale or thin."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from amg.tools.kg.records import iso_utc
from amg.tools.kg.store import QAStore


def detect_gaps(entities: list[dict], store: QAStore, tau: float, stale_days: int, min_relations: int) -> dict:
    """State update: ``gaps`` ([{key, name, status}]) for entities that need evidence."""
    if not entities:
        return {"gaps": []}
    stale_before = iso_utc(datetime.now(timezone.utc) - timedelta(days=stale_days))
    keys = [e["key"] for e in entities]
    reports = {r.key: r for r in store.gap_check(keys, tau, stale_before, min_relations)}
    present = [k for k in keys if reports[k].status != "missing"]
    if present:
        store.touch(present, "hits")  # question traffic steers the background refresh
    gaps = [
        {"key": e["key"], "name": e["name"], "type": e["type"], "status": reports[e["key"]].status}
        for e in entities
        if reports[e["key"]].status != "ok"
    ]
    return {"gaps": gaps}
