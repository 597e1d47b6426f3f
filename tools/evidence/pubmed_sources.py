"""Which PubMed the evidence searcher reads (``AMG_PUBMED``): NCBI's, the local index, both, or the local one
when NCBI cannot be reached (``auto``). Every choice answers as ``PubMedClient`` does, with the same Articles.
"""

from __future__ import annotations

import time

from amg.tools.choices import PUBMED
from amg.tools.evidence.pubmed import PubMedClient
from amg.tools.evidence.remote_calls import SourceUnavailable
from amg.tools.literature.index import LiteratureIndex
from amg.tools.literature.pubmed_xml import Article


def _year(date: str | None) -> int | None:
    head = str(date or "")[:4]
    return int(head) if head.isdigit() else None


class LocalPubMed:
    """The local index through Entrez's interface: search → PMIDs, fetch → Articles."""

    def __init__(self, index: LiteratureIndex):
        self.index = index

    def search(
        self,
        query: str,
        max_results: int = 5,
        *,
        mindate: str | None = None,
        maxdate: str | None = None,
        sort: str = "relevance",
        context: str = "",
    ) -> list[str]:
        hits = self.index.search(f"{query} {context}", max_results, min_year=_year(mindate), max_year=_year(maxdate))
        return [hit.key for hit in hits]

    def fetch(self, pmids: list[str]) -> list[Article]:
        return self.index.fetch(pmids)

    def search_articles(self, query: str, max_results: int = 5, **filters) -> list[Article]:
        return self.fetch(self.search(query, max_results, **filters))


class PubMedSources:
    """NCBI and the local index as one PubMed; in ``both``, results alternate and each PMID comes once."""

    def __init__(
        self, choice: str, remote: PubMedClient | None, *, local: LocalPubMed | None, cooldown_s: float = 120.0
    ):
        if choice not in PUBMED:
            raise ValueError(f"AMG_PUBMED={choice!r} (choose {', '.join(PUBMED)})")
        if choice in ("local", "both") and local is None:
            raise ValueError(f"AMG_PUBMED={choice} but there is no local PubMed index: run `amg ingest pubmed FILE…`")
        self.choice, self.remote, self.local, self.cooldown_s = choice, remote, local, cooldown_s
        self._remote_down_until = 0.0

    def search_articles(self, query: str, max_results: int = 5, **filters) -> list[Article]:
        if self.choice == "remote" or self.local is None:
            return self.ncbi().search_articles(query, max_results, **filters)
        if self.choice == "local":
            return self.local.search_articles(query, max_results, **filters)
        remote = self._remote_or_none(query, max_results, filters)
        if self.choice == "auto" and remote is not None:
            return remote
        local = self.local.search_articles(query, max_results, **filters)
        if remote is None:
            return local  # auto, and both, without the network: the local index answers
        merged: dict[str, Article] = {}
        for article in [a for pair in zip(local, remote) for a in pair] + local[len(remote) :] + remote[len(local) :]:
            merged.setdefault(article.key, article)
        return list(merged.values())[:max_results]

    def _remote_or_none(self, query: str, max_results: int, filters: dict) -> list[Article] | None:
        if time.monotonic() < self._remote_down_until:
            return None
        try:
            return self.ncbi().search_articles(query, max_results, **filters)
        except SourceUnavailable:
            self._remote_down_until = time.monotonic() + self.cooldown_s
            return None

    def ncbi(self) -> PubMedClient:
        """NCBI's client: every choice but ``local`` has one (only ``local`` is made without)."""
        if self.remote is None:
            raise ValueError(f"AMG_PUBMED={self.choice} reads NCBI's PubMed, but no client for it was given")
        return self.remote
