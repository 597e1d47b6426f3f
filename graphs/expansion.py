"""Expanding one entity: evidence search, then relation scoring and the graph write.

Shared by the QA graph (gap entities; it may score after answering), the build graph and the
refresh agent, so the three never drift apart.
"""

from __future__ import annotations

from collections.abc import Sequence

from amg.agents.evidence_searcher import FoundEvidence, KeptEvidence, search_evidence
from amg.agents.learned import Learned
from amg.agents.relation_scorer import score_relations
from amg.graphs.context import Context
from amg.graphs.resources import Resources
from amg.tools.kg.pipeline_types import Named, withdrawn
from amg.tools.kg.records import EvidenceFields
from amg.tools.kg.store.rows import EntityRef


class Expanded(Learned):
    """What expanding an entity found and learned: ``learn``'s report, with the evidence searched."""

    records: list[EvidenceFields]
    texts: dict[str, str]


def search(
    entity: EntityRef, question: str, *, res: Resources, ctx: Context, mindate: str | None = None
) -> FoundEvidence:
    """Evidence for ``entity``: {records, texts, degradations}."""
    return search_evidence(
        entity["name"], res.evidence, sources=ctx.sources, k=ctx.max_evidence, context=question, mindate=mindate
    )


def standing(found: KeptEvidence, res: Resources) -> KeptEvidence:
    """``found`` without the papers PubMed retracted or deleted (by their record, or as the graph marks them):
    nothing is learned from a withdrawn paper."""
    records = found.get("records", [])
    marked = res.store.held_evidence([r["id"] for r in records if r["kind"] == "pubmed"]) if records else {}
    kept = [r for r in records if not withdrawn(r) and marked.get(r["id"]) is None]
    return {**found, "records": kept} if len(kept) < len(records) else found


def learn(
    entity: EntityRef, question: str, *, others: Sequence[Named], found: KeptEvidence, res: Resources, ctx: Context
) -> Learned:
    """Score ``found`` (a ``search`` result) into the graph; new and weakened relations, refusals, usage."""
    found = standing(found, res)
    scored = score_relations(
        entity, question, others=others, evidence=found, reader=res.reader(ctx.keep_score), store=res.store
    )
    return {
        "new_relations": scored.get("new_relations", []),
        "weakened": scored.get("weakened", []),
        "refused": scored.get("refused", []),
        "degradations": scored.get("degradations", []),
        "llm_calls": scored.get("llm_calls", 0),
        "tokens": scored.get("tokens", 0),
    }


def expand(
    entity: EntityRef,
    question: str,
    *,
    others: Sequence[Named],
    res: Resources,
    ctx: Context,
    mindate: str | None = None,
) -> Expanded:
    """Search and score ``entity``; returns evidence records and texts, new and weakened relations, usage."""
    found = search(entity, question, res=res, ctx=ctx, mindate=mindate)
    learned = learn(entity, question, others=others, found=found, res=res, ctx=ctx)
    return {
        **learned,
        "records": found["records"],
        "texts": found["texts"],
        "degradations": found["degradations"] + learned["degradations"],
    }
