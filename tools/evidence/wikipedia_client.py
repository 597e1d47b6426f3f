"""Wikipedia through the ``wikipedia`` package: search and page summaries, disambiguation handled.

Same politeness as PubMed: shared rate limit, tenacity retries, on-disk cache. The package
defaults to plain HTTP and no timeout; every request it makes goes over HTTPS with a timeout.
"""

from __future__ import annotations

import json
import re
from dataclasses import KW_ONLY, dataclass, field
from typing import Protocol

import requests
import wikipedia

from amg.tools.evidence.remote_calls import call_remote, shared_limiter
from amg.tools.evidence.request_cache import RequestCache

MEDICAL_HINTS = (
    "medicine",
    "medical",
    "disease",
    "disorder",
    "syndrome",
    "drug",
    "medication",
    "pharmacology",
    "anatomy",
    "gene",
    "protein",
    "infection",
    "symptom",
    "condition",
    "pathology",
    "cancer",
    "deficiency",
)
MEDICAL_ENDINGS = ("osis", "itis", "emia", "aemia", "oma", "pathy", "algia", "plasia", "trophy", "ectomy", "uria")
TIMEOUT_S = 15.0


class _HttpsTransport:
    """Stands in for ``requests`` inside the package: HTTPS only (even after ``set_lang``), with a timeout."""

    @staticmethod
    def get(url: str, **kwargs):
        if url.startswith("http://"):
            url = "https://" + url[len("http://") :]
        return requests.get(url, timeout=TIMEOUT_S, **kwargs)


wikipedia.wikipedia.API_URL = "https://en.wikipedia.org/w/api.php"
wikipedia.wikipedia.requests = _HttpsTransport


@dataclass
class WikiPage:
    title: str
    summary: str
    _: KW_ONLY
    url: str
    options: list[str] = field(default_factory=list)  # set when a disambiguation could not be resolved


class WikiBackend(Protocol):
    def search(self, query: str, results: int) -> list[str]: ...
    def page(self, title: str) -> WikiPage: ...


class PackageBackend:
    """The real backend: the ``wikipedia`` package (raises its own exceptions)."""

    def search(self, query: str, results: int) -> list[str]:
        return wikipedia.search(query, results=results)

    def page(self, title: str) -> WikiPage:
        page = wikipedia.page(title, auto_suggest=False, redirect=True)
        return WikiPage(page.title, page.summary, url=page.url)


def medical_choice(options: list[str], context: str) -> str | None:
    """The option that reads as the medical sense, preferring overlap with the context."""
    context_words = set(re.findall(r"[a-z]{4,}", context.lower()))

    def score(option: str) -> int:
        text = option.lower()
        hint = sum(3 for h in MEDICAL_HINTS if h in text)
        hint += sum(3 for word in re.findall(r"[a-z]+", text) if word.endswith(MEDICAL_ENDINGS))
        return hint + len(context_words & set(re.findall(r"[a-z]{4,}", text)))

    ranked = sorted(options, key=score, reverse=True)
    return ranked[0] if ranked and score(ranked[0]) > 0 else None


class WikipediaClient:
    def __init__(self, cache: RequestCache, backend: WikiBackend | None = None):
        self.cache, self.backend = cache, backend or PackageBackend()
        self.limiter = shared_limiter("wikipedia", 5.0)

    def lookup(self, query: str, context: str = "", max_pages: int = 2) -> list[WikiPage]:
        """Summaries of the best pages for ``query``; disambiguations resolved by ``context``."""
        query = " ".join((query or "").split())[:300]
        if not query:
            raise ValueError("Wikipedia query is empty")
        key = self.cache.key("wikipedia", {"q": query, "ctx": context[:200], "n": max_pages})
        cached = self.cache.get(key)
        if cached is not None:
            return [WikiPage(**p) for p in json.loads(cached)]
        titles = call_remote("Wikipedia", lambda: self.backend.search(query, max_pages), limiter=self.limiter)
        pages = []
        for title in titles[:max_pages]:
            page = self._page(title, context or query)
            if page is not None:
                pages.append(page)
        self.cache.put(key, json.dumps([p.__dict__ for p in pages]).encode())
        return pages

    def _page(self, title: str, context: str) -> WikiPage | None:
        try:
            return call_remote("Wikipedia", lambda: self.backend.page(title), limiter=self.limiter)
        except wikipedia.exceptions.DisambiguationError as exc:
            choice = medical_choice(list(exc.options), context)
            if choice is None:
                return WikiPage(title, "", url="", options=list(exc.options)[:10])
            try:
                return call_remote("Wikipedia", lambda: self.backend.page(choice), limiter=self.limiter)
            except (wikipedia.exceptions.DisambiguationError, wikipedia.exceptions.PageError):
                return None
        except wikipedia.exceptions.PageError:
            return None
