"""PubMed through Biopython's Entrez: search (esearch) and fetch (efetch XML), keeping provenance.

Polite by construction: sends tool/email/api_key, shares one rate limiter per process
(3 requests/s, 10/s with a key), caches responses on disk, retries with tenacity only
(Entrez's own 15-second retry loop is switched off).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from typing import Callable

from Bio import Entrez
from Bio.Entrez.Parser import CorruptedXMLError, NotXMLError, ValidationError

from amg.tools.batching import chunked
from amg.tools.evidence.remote_calls import SourceUnavailable, call_remote, shared_limiter
from amg.tools.evidence.request_cache import RequestCache

Entrez.max_tries = 1
TOOL = "amg-medical-qa"
FETCH_BATCH = 200
MAX_QUERY_CHARS = 300

Transport = Callable[[str, dict], bytes]


class MalformedResponse(RuntimeError):
    """NCBI answered with something that is not the XML we asked for."""


@dataclass
class Article:
    pmid: str
    title: str
    abstract: str
    year: int | None = None
    journal: str | None = None
    doi: str | None = None
    publication_types: list[str] = field(default_factory=list)
    mesh_terms: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"https://pubmed.ncbi.nlm.nih.gov/{self.pmid}/"


def entrez_transport(endpoint: str, params: dict) -> bytes:
    """The real network call: Bio.Entrez.esearch / efetch."""
    with getattr(Entrez, endpoint)(**params) as handle:
        return handle.read()


def clean_query(text: str) -> str:
    """Plain search words: Entrez field tags, brackets and stray quotes removed, length capped."""
    text = re.sub(r"\[[^\]]*\]", " ", text or "")
    text = re.sub(r"[\"'`()\[\]{}]", " ", text)
    text = " ".join(text.split())[:MAX_QUERY_CHARS].strip()
    if not text:
        raise ValueError("PubMed query is empty")
    return text


class PubMedClient:
    def __init__(self, email: str, api_key: str, cache: RequestCache, transport: Transport = entrez_transport):
        self.identity = {"tool": TOOL, "email": email or "amg-user@example.invalid"}
        if api_key:
            self.identity["api_key"] = api_key
        self.cache, self.transport = cache, transport
        self.limiter = shared_limiter("pubmed", 10.0 if api_key else 3.0)

    def _get(self, endpoint: str, params: dict) -> bytes:
        key = self.cache.key(endpoint, params)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        body = call_remote("PubMed", lambda: self.transport(endpoint, {**params, **self.identity}), self.limiter)
        self.cache.put(key, body)
        return body

    def search(
        self, query: str, max_results: int = 5, mindate: str | None = None, maxdate: str | None = None,
        sort: str = "relevance",
    ) -> list[str]:  # fmt: skip
        """PMIDs matching ``query``; dates as YYYY or YYYY/MM/DD (publication date)."""
        params = {"db": "pubmed", "term": clean_query(query), "retmax": max(1, min(max_results, 200)), "sort": sort}
        if mindate or maxdate:
            params.update(datetype="pdat", mindate=mindate or "1800", maxdate=maxdate or "3000")
        parsed = _parse(self._get("esearch", params))
        return [str(pmid) for pmid in parsed.get("IdList", [])]

    def fetch(self, pmids: list[str]) -> list[Article]:
        """Articles for ``pmids`` (unknown ids are simply absent), in batches of 200."""
        ids = [p for p in dict.fromkeys(str(p).strip() for p in pmids) if p.isdigit()]
        articles: list[Article] = []
        for batch in chunked(ids, FETCH_BATCH):
            params = {"db": "pubmed", "id": ",".join(batch), "retmode": "xml"}
            parsed = _parse(self._get("efetch", params))
            articles.extend(article_from_xml(a) for a in parsed.get("PubmedArticle", []))
        return articles

    def search_articles(self, query: str, max_results: int = 5, **filters) -> list[Article]:
        return self.fetch(self.search(query, max_results, **filters))


def _parse(body: bytes) -> dict:
    try:
        return Entrez.read(io.BytesIO(body), validate=False)
    except (CorruptedXMLError, NotXMLError, ValidationError, RuntimeError, ValueError) as exc:
        raise MalformedResponse(f"PubMed sent malformed XML ({type(exc).__name__})") from exc


def article_from_xml(record: dict) -> Article:
    """One PubmedArticle as parsed by Bio.Entrez into an Article; missing parts stay empty."""
    citation = record.get("MedlineCitation", {})
    art = citation.get("Article", {})
    sections = []
    for part in art.get("Abstract", {}).get("AbstractText", []):
        label = getattr(part, "attributes", {}).get("Label")
        sections.append(f"{label}: {part}" if label else str(part))
    journal = art.get("Journal", {})
    pub_date = journal.get("JournalIssue", {}).get("PubDate", {})
    year_text = str(pub_date.get("Year") or pub_date.get("MedlineDate") or "")
    year_match = re.search(r"\b(1[89]\d\d|20\d\d)\b", year_text)
    doi = None
    for ident in record.get("PubmedData", {}).get("ArticleIdList", []):
        if getattr(ident, "attributes", {}).get("IdType") == "doi":
            doi = str(ident)
    for loc in art.get("ELocationID", []):
        if doi is None and getattr(loc, "attributes", {}).get("EIdType") == "doi":
            doi = str(loc)
    return Article(
        pmid=str(citation.get("PMID", "")),
        title=str(art.get("ArticleTitle", "")),
        abstract="\n".join(sections),
        year=int(year_match.group(1)) if year_match else None,
        journal=str(journal.get("Title")) if journal.get("Title") else None,
        doi=doi,
        publication_types=[str(t) for t in art.get("PublicationTypeList", [])],
        mesh_terms=[str(h.get("DescriptorName")) for h in citation.get("MeshHeadingList", [])],
    )


__all__ = ["Article", "MalformedResponse", "PubMedClient", "SourceUnavailable", "clean_query"]
