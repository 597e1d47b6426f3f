"""Agent 3, evidence searcher: evidence for one entity from the configured sources."""

from __future__ import annotations

from amg.tools.evidence.finder import EvidenceFinder


def search_evidence(
    entity: dict, question: str, finder: EvidenceFinder, sources: list[str], k: int, mindate: str | None = None
) -> dict:
    """Evidence records (as dicts) and their texts for ``entity``; source faults become degradations."""
    batch = finder.find_evidence(entity["name"], sources, k=k, context=question, mindate=mindate)
    return {
        "records": [record.as_props() for record in batch.records],
        "texts": batch.texts,
        "degradations": batch.degradations,
    }
