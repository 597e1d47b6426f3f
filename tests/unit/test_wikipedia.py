"""Wikipedia client with a fake backend raising the package's real exceptions."""

from __future__ import annotations

import pytest
import wikipedia

from amg.tools.evidence.remote_calls import SourceUnavailable
from amg.tools.evidence.request_cache import RequestCache
from amg.tools.evidence.wikipedia_client import WikiPage, WikipediaClient, medical_choice


class FakeWiki:
    def __init__(self):
        self.calls = 0

    def search(self, query, results):
        self.calls += 1
        return {"MS": ["MS"], "Metformin": ["Metformin"], "Nothing": ["Ghost page"]}.get(query, [])

    def page(self, title):
        self.calls += 1
        if title == "MS":
            raise wikipedia.exceptions.DisambiguationError(
                "MS", ["Microsoft", "Multiple sclerosis", "Master of Science"]
            )
        if title == "Ghost page":
            raise wikipedia.exceptions.PageError(title)
        return WikiPage(
            title,
            f"{title} is a medication." if title == "Metformin" else f"{title} is a disease.",
            url=f"https://en.wikipedia.org/wiki/{title.replace(' ', '_')}",
        )


@pytest.fixture
def client(tmp_path):
    return WikipediaClient(RequestCache(tmp_path / "c.sqlite"), FakeWiki())


def test_summary_and_cache(client):
    pages = client.lookup("Metformin")
    assert pages[0].title == "Metformin" and pages[0].url.endswith("/Metformin")
    calls = client.backend.calls
    client.lookup("Metformin")
    assert client.backend.calls == calls


def test_disambiguation_picks_the_medical_sense(client):
    pages = client.lookup("MS", context="a young woman with optic neuritis and demyelinating disease")
    assert pages[0].title == "Multiple sclerosis"


def test_unresolvable_disambiguation_reports_options():
    assert medical_choice(["Apple Inc.", "Apple (fruit)"], "") is None
    assert medical_choice(["Cold (temperature)", "Common cold (disease)"], "") == "Common cold (disease)"


def test_missing_page_is_skipped_and_empty_query_rejected(client):
    assert client.lookup("Nothing") == []
    with pytest.raises(ValueError):
        client.lookup("  ")


def test_real_package_fails_fast_offline(tmp_path):
    with pytest.raises(SourceUnavailable, match="Wikipedia unreachable"):
        WikipediaClient(RequestCache(tmp_path / "c.sqlite")).lookup("Metformin")


def test_the_package_is_asked_over_https_with_a_timeout(monkeypatch):
    import requests

    from amg.tools.evidence.wikipedia_client import PackageBackend

    asked = []

    def refuse(url, **kwargs):
        asked.append((url, kwargs.get("timeout")))
        raise requests.exceptions.ConnectionError("offline")

    monkeypatch.setattr(requests, "get", refuse)
    for language in ("en", "de"):  # set_lang resets the package's URL to http://
        wikipedia.set_lang(language)
        with pytest.raises(requests.exceptions.ConnectionError):
            PackageBackend().search("Metformin", 1)
    wikipedia.set_lang("en")
    assert [url.split("/w/")[0] for url, _ in asked] == ["https://en.wikipedia.org", "https://de.wikipedia.org"]
    assert all(timeout and timeout <= 30 for _, timeout in asked)
