"""One evidence interface over PubMed, Wikipedia and the textbook passages.

``find_evidence`` returns uniform EvidenceRecords (ready to be stored as Evidence nodes)
plus one-line degradations. A source that fails is skipped for ``cooldown_s`` so a run
with the network absent reports it once and carries on instead of waiting on every call.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from amg.tools.evidence.pubmed import MalformedResponse
from amg.tools.evidence.remote_calls import SourceUnavailable
from amg.tools.evidence.wikipedia_client import WikipediaClient
from amg.tools.kg.records import EvidenceRecord
from amg.tools.literature.pubmed_xml import Article
from amg.tools.vectors.passages import PassageStore

SNIPPET_CHARS = 1500


@dataclass
class EvidenceBatch:
    records: list[EvidenceRecord] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)  # evidence id -> text given to the LLM
    degradations: list[str] = field(default_factory=list)


def pubmed_record(art: Article) -> tuple[EvidenceRecord, str]:
    """A PubMed record as evidence (a retracted paper says so in its ``status``) and the text a model reads."""
    text = art.conclusion_first()[:SNIPPET_CHARS]
    record = EvidenceRecord(
        id=art.evidence_id,
        kind="pubmed",
        title=art.display_title,
        snippet=text,
        year=art.year,
        journal=art.journal,
        pmid=art.pmid or None,
        doi=art.doi,
        url=art.url,
        status="retracted" if art.retracted else None,
    )
    return record, text


class ArticleSearch(Protocol):
    """PubMed as the finder asks it: NCBI's client (tools/evidence/pubmed.py), the local index, or either
    (tools/evidence/pubmed_sources.py)."""

    def search_articles(self, query: str, max_results: int = 5, **filters: str | None) -> list[Article]: ...


class EvidenceFinder:
    def __init__(
        self,
        pubmed: ArticleSearch | None = None,
        wikipedia: WikipediaClient | None = None,
        *,
        passages: PassageStore | None = None,
        cooldown_s: float = 120.0,
        min_passage_score: float = 0.0,
    ):
        self.pubmed, self.wikipedia, self.passages = pubmed, wikipedia, passages
        self.sources = {"pubmed": pubmed, "wikipedia": wikipedia, "textbook": passages}
        self.min_passage_score = min_passage_score  # a small corpus returns its every chunk, on topic or not
        self.cooldown_s = cooldown_s
        self._down_until: dict[str, float] = {}

    def find_evidence(
        self, query: str, sources: Sequence[str], *, k: int = 5, context: str = "", mindate: str | None = None
    ) -> EvidenceBatch:
        batch = EvidenceBatch()
        for name in sources:
            if self.sources.get(name) is None:
                continue
            if self._down_until.get(name, 0) > time.monotonic():
                batch.degradations.append(f"{name} skipped (unreachable earlier in this run)")
                continue
            try:
                for record, text in self._fetch(name, query, k=k, context=context, mindate=mindate):
                    batch.records.append(record)
                    batch.texts[record.id] = text
            except (SourceUnavailable, MalformedResponse) as exc:
                self._down_until[name] = time.monotonic() + self.cooldown_s
                batch.degradations.append(f"{name}: {exc}; answered from the graph and other sources")
        return batch

    def _fetch(
        self, name: str, query: str, *, k: int, context: str, mindate: str | None
    ) -> Iterator[tuple[EvidenceRecord, str]]:
        if name == "pubmed" and self.pubmed is not None:
            for art in self.pubmed.search_articles(query, max_results=k, mindate=mindate, context=context):
                yield pubmed_record(art)
        elif name == "wikipedia" and self.wikipedia is not None:
            for page in self.wikipedia.lookup(query, context=context, max_pages=min(k, 2)):
                if page.options:
                    continue  # unresolved disambiguation: nothing to cite
                text = page.summary[:SNIPPET_CHARS]
                yield (
                    EvidenceRecord(
                        id=f"wiki:{page.title}", kind="wikipedia", title=page.title, snippet=text, url=page.url
                    ),
                    text,
                )
        elif name == "textbook" and self.passages is not None:
            for passage in (p for p in self.passages.search(query, k=k) if p.score >= self.min_passage_score):
                yield (
                    EvidenceRecord(
                        id=f"textbook:{passage.source}::{passage.chunk}",
                        kind="textbook",
                        title=passage.source,
                        snippet=passage.text[:SNIPPET_CHARS],
                        url=Path(passage.file).as_uri() if passage.file else "",
                    ),
                    passage.text[:SNIPPET_CHARS],
                )
