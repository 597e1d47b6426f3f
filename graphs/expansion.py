"""Expanding one entity: evidence search, then relation scoring and the graph write.

Shared by the QA graph (gap entities), the build graph and the refresh agent, so the
three never drift apart.
"""

from __future__ import annotations

from agents.evidence_searcher import search_evidence
from agents.relation_scorer import score_relations
from graphs.context import Context
from graphs.resources import Resources


def expand(entity: dict, question: str, others: list[dict], res: Resources, ctx: Context,
           mindate: str | None = None) -> dict:  # fmt: skip
    """Search and score ``entity``; returns evidence records, new and weakened relations, usage."""
    found = search_evidence(entity, question, res.evidence, ctx.source_list, ctx.max_evidence, mindate=mindate)
    scored = score_relations(entity, question, others, found, res.llm, res.model_name, res.store, ctx.keep_score)
    return {
        "records": found["records"],
        "new_relations": scored.get("new_relations", []),
        "weakened": scored.get("weakened", []),
        "refused": scored.get("refused", []),
        "degradations": found["degradations"] + scored.get("degradations", []),
        "llm_calls": scored.get("llm_calls", 0),
        "tokens": scored.get("tokens", 0),
    }
