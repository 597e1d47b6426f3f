"""Agent 2, KG lookup / gap detector: which question entities are missing, stale or thin, and whether the
graph holds an answer to a research question's claim.

A research question asks whether something holds ("Can medical students contribute to quality
assurance in day surgery?"): yes / no / maybe options, or an open question opening with a verb (or whose part
after a colon does: "Day surgery: can medical students contribute to quality assurance?").
Its entities are usually in the graph from the ontologies, which say nothing about the claim.
The claim is held when a study's finding resting on a paper (a PMID) joins two things the question names;
otherwise ``claim_gap`` sends the question itself to the literature (graphs/qa_graph.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TypedDict

from amg.tools.kg.pipeline_types import Gap
from amg.tools.kg.records import iso_utc
from amg.tools.kg.schema import FINDINGS, normalize_key
from amg.tools.kg.store.protocols import QAStore
from amg.tools.kg.store.rows import EntityRef
from amg.tools.kg.traversal.traverse import LINK_FLOOR


class GapsFound(TypedDict):
    """The gap detector's state update: the entities that need evidence, and whether a research question's claim
    does (the graph does not hold it)."""

    gaps: list[Gap]
    claim_gap: bool


def claim_held(question: str, keys: list[str], store: QAStore) -> bool:
    """Whether a study's finding resting on a paper joins a question entity to another thing the question names."""
    named = f" {normalize_key(question)} "
    return any(
        any(i.startswith("pmid:") for i in edge["evidence_ids"] or []) and f" {edge['other']} " in named
        for edge in (store.findings(keys, [r.name for r in FINDINGS], LINK_FLOOR) if keys else [])
    )


def detect_gaps(
    entities: Sequence[EntityRef],
    store: QAStore,
    *,
    tau: float,
    stale_days: int,
    min_relations: int,
    question: str = "",
    research: bool = False,
) -> GapsFound:
    """State update: ``gaps`` ([{key, name, status}]) for entities that need evidence, and ``claim_gap`` (a
    ``research`` question whose claim the graph does not hold)."""
    keys = [e["key"] for e in entities]
    claim_gap = research and not claim_held(question, keys, store)
    if not entities:
        return {"gaps": [], "claim_gap": claim_gap}
    stale_before = iso_utc(datetime.now(UTC) - timedelta(days=stale_days))
    reports = {r.key: r for r in store.gap_check(keys, tau, stale_before=stale_before, min_relations=min_relations)}
    present = [k for k in keys if reports[k].status != "missing"]
    if present:
        store.touch(present, "hits")  # question traffic steers the background refresh
    gaps = [
        Gap(key=e["key"], name=e["name"], type=e["type"], status=reports[e["key"]].status)
        for e in entities
        if reports[e["key"]].status != "ok"
    ]
    return {"gaps": gaps, "claim_gap": claim_gap}
