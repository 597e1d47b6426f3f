"""PubMed through Biopython's Entrez: search (esearch) and fetch (efetch XML, read as the local index reads
NLM's files), keeping provenance.

Polite by construction: sends tool/email/api_key, shares one rate limiter per process
(3 requests/s, 10/s with a key), caches responses on disk, retries with tenacity only
(Entrez's own 15-second retry loop is switched off).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import NotRequired, TypedDict, cast

from Bio import Entrez
from Bio.Entrez.Parser import CorruptedXMLError, NotXMLError, ValidationError

from amg.tools.batching import chunked
from amg.tools.evidence.remote_calls import SourceUnavailable, call_remote, shared_limiter
from amg.tools.evidence.request_cache import RequestCache
from amg.tools.literature.pubmed_xml import Article, NotPubMedXML, read_articles
from amg.tools.literature.query_words import query_words

Entrez.max_tries = 1
TOOL = "amg-medical-qa"
FETCH_BATCH = 200
MAX_QUERY_CHARS = 300

Transport = Callable[[str, dict], bytes]


class MalformedResponse(RuntimeError):
    """NCBI answered with something that is not the XML we asked for."""


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


def entrez_term(entity: str, question: str = "", max_terms: int = 6) -> str:
    """What Entrez is asked: the entity, and with a question, any of the question's other key words
    ("metformin AND (lactic OR acidosis)"), so the papers found speak to the question, not only the entity."""
    base = clean_query(entity)
    own = set(query_words(base))
    extra = [w for w in query_words(question) if w not in own and not w.isdigit()][:max_terms]
    return f"{base} AND ({' OR '.join(extra)})" if extra else base


class PubMedClient:
    def __init__(self, email: str, api_key: str, *, cache: RequestCache, transport: Transport = entrez_transport):
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
        body = call_remote(
            "PubMed", lambda: self.transport(endpoint, {**params, **self.identity}), limiter=self.limiter
        )
        self.cache.put(key, body)
        return body

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
        """PMIDs matching ``query`` (and any of ``context``'s key words); dates as YYYY or YYYY/MM/DD."""
        term = entrez_term(query, context)
        params = {"db": "pubmed", "term": term, "retmax": max(1, min(max_results, 200)), "sort": sort}
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
            body = self._get("efetch", params)
            try:
                articles.extend(a for a in read_articles(io.BytesIO(body)) if isinstance(a, Article))
            except NotPubMedXML as exc:
                raise MalformedResponse(f"PubMed sent malformed XML ({exc})") from None
        return articles

    def search_articles(self, query: str, max_results: int = 5, **filters) -> list[Article]:
        return self.fetch(self.search(query, max_results, **filters))


class SearchReply(TypedDict):
    """The part of an esearch reply the client reads."""

    IdList: NotRequired[list[str]]


def _parse(body: bytes) -> SearchReply:
    try:
        return cast(SearchReply, Entrez.read(io.BytesIO(body), validate=False))
    except (CorruptedXMLError, NotXMLError, ValidationError, RuntimeError, ValueError) as exc:
        raise MalformedResponse(f"PubMed sent malformed XML ({type(exc).__name__})") from exc


__all__ = ["Article", "MalformedResponse", "PubMedClient", "SourceUnavailable", "clean_query"]
