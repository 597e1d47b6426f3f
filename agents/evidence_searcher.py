"""Agent 3, evidence searcher: the one way the QA, build and refresh graphs search evidence.

An entity's gap is searched by its name, read in the question's context; a research question's claim by the
question itself, as a user types it into PubMed. Either way the configured sources are asked through the
evidence finder (tools/evidence/finder.py), and a source that fails becomes a degradation, not an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from amg.tools.evidence.finder import EvidenceFinder
from amg.tools.kg.records import EvidenceFields


class KeptEvidence(TypedDict):
    """Evidence records as plain data, and the text of each that a model reads (by id)."""

    records: list[EvidenceFields]
    texts: dict[str, str]


class FoundEvidence(KeptEvidence):
    degradations: list[str]  # the sources that failed, and how


def search_evidence(
    query: str,
    finder: EvidenceFinder,
    *,
    sources: Sequence[str],
    k: int,
    context: str = "",
    mindate: str | None = None,
) -> FoundEvidence:
    """Evidence records (as plain data) and their texts for ``query``; source faults become degradations."""
    batch = finder.find_evidence(query, sources, k=k, context=context, mindate=mindate)
    return FoundEvidence(
        records=[record.as_props() for record in batch.records], texts=batch.texts, degradations=batch.degradations
    )
