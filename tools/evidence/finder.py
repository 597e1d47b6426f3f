"""One evidence interface over PubMed, Wikipedia and the textbook passages.

``find_evidence`` returns uniform EvidenceRecords (ready to be stored as Evidence nodes)
plus one-line degradations. A source that fails is skipped for ``cooldown_s`` so a run
with the network absent reports it once and carries on instead of waiting on every call.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from amg.tools.evidence.pubmed import MalformedResponse
from amg.tools.evidence.pubmed_sources import PubMedSources
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


class EvidenceFinder:
    def __init__(
        self,
        pubmed: PubMedSources | None = None,
        wikipedia: WikipediaClient | None = None,
        passages: PassageStore | None = None,
        cooldown_s: float = 120.0,
        min_passage_score: float = 0.0,
    ):
        self.sources = {"pubmed": pubmed, "wikipedia": wikipedia, "textbook": passages}
        self.min_passage_score = min_passage_score  # a small corpus returns its every chunk, on topic or not
        self.cooldown_s = cooldown_s
        self._down_until: dict[str, float] = {}

    def find_evidence(
        self, query: str, sources: list[str], k: int = 5, context: str = "", mindate: str | None = None
    ) -> EvidenceBatch:
        batch = EvidenceBatch()
        for name in sources:
            client = self.sources.get(name)
            if client is None:
                continue
            if self._down_until.get(name, 0) > time.monotonic():
                batch.degradations.append(f"{name} skipped (unreachable earlier in this run)")
                continue
            try:
                for record, text in self._fetch(name, client, query, k, context, mindate):
                    batch.records.append(record)
                    batch.texts[record.id] = text
            except (SourceUnavailable, MalformedResponse) as exc:
                self._down_until[name] = time.monotonic() + self.cooldown_s
                batch.degradations.append(f"{name}: {exc}; answered from the graph and other sources")
        return batch

    def _fetch(self, name, client, query, k, context, mindate):
        if name == "pubmed":
            for art in client.search_articles(query, max_results=k, mindate=mindate, context=context):
                yield pubmed_record(art)
        elif name == "wikipedia":
            for page in client.lookup(query, context=context, max_pages=min(k, 2)):
                if page.options:
                    continue  # unresolved disambiguation: nothing to cite
                text = page.summary[:SNIPPET_CHARS]
                yield (
                    EvidenceRecord(
                        id=f"wiki:{page.title}", kind="wikipedia", title=page.title, snippet=text, url=page.url
                    ),
                    text,
                )
        else:
            for passage in (p for p in client.search(query, k=k) if p.score >= self.min_passage_score):
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
