"""PubMed client on recorded NCBI responses and injected faults: no network."""

from __future__ import annotations

import io
import time
import urllib.error

import pytest

from amg.testing.fakes import DATA, RecordedEntrez
from amg.tools.evidence.pubmed import MalformedResponse, PubMedClient, clean_query
from amg.tools.evidence.remote_calls import RateLimiter, SourceUnavailable, call_remote
from amg.tools.evidence.request_cache import RequestCache


@pytest.fixture
def cache(tmp_path):
    return RequestCache(tmp_path / "cache.sqlite")


def test_search_and_fetch_keep_provenance(cache):
    transport = RecordedEntrez()
    client = PubMedClient("me@example.org", "", cache=cache, transport=transport)
    articles = client.search_articles("metformin type 2 diabetes", max_results=2)
    first, second = articles
    assert (first.pmid, first.year, first.journal, first.doi) == (
        "31000001",
        2021,
        "Journal of Diabetes Research",
        "10.1000/jdr.2021.001",
    )
    assert first.abstract.startswith("BACKGROUND: Metformin is recommended") and "RESULTS: " in first.abstract
    assert first.publication_types == ["Journal Article", "Review"] and "Metformin" in first.mesh_terms
    # missing abstract, DOI and a MedlineDate year are tolerated
    assert (second.pmid, second.abstract, second.doi, second.year) == ("31000002", "", None, 2019)
    endpoint, params = transport.requests[0]
    assert endpoint == "esearch" and params["tool"] == "amg-medical-qa" and params["email"] == "me@example.org"
    assert "api_key" not in params


def test_cache_answers_repeated_questions(cache):
    transport = RecordedEntrez()
    client = PubMedClient("", "", cache=cache, transport=transport)
    client.search_articles("metformin")
    client.search_articles("metformin")
    assert len(transport.requests) == 2  # one esearch + one efetch, then all from cache


def test_corrupt_cache_file_is_rebuilt(tmp_path):
    path = tmp_path / "cache.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    cache = RequestCache(path)
    cache.put("k", b"v")
    assert cache.get("k") == b"v"
    assert list(tmp_path.glob("cache.corrupt-*"))


def test_queries_are_cleaned():
    assert clean_query('"metformin"[MeSH Terms] AND (lactic acidosis)') == "metformin AND lactic acidosis"
    with pytest.raises(ValueError, match="empty"):
        clean_query("   [tiab] ")
    assert len(clean_query("x " * 10_000)) <= 300


def test_unknown_and_malformed(cache):
    client = PubMedClient(
        "", "", cache=cache, transport=RecordedEntrez(esearch="esearch_empty.xml", efetch="efetch_truncated.xml")
    )
    assert client.search("zzzz") == []
    assert client.fetch(["not-a-pmid"]) == []
    with pytest.raises(MalformedResponse):
        client.fetch(["1"])


class Flaky:
    """Fails with the given exceptions first, then answers."""

    def __init__(self, *failures):
        self.failures, self.calls = list(failures), []

    def __call__(self, endpoint, params):
        self.calls.append(time.monotonic())
        if self.failures:
            raise self.failures.pop(0)
        return (DATA / "esearch_metformin.xml").read_bytes()


def http_error(code, retry_after=None):
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
    return urllib.error.HTTPError("https://eutils", code, "err", headers, io.BytesIO(b""))


def test_retries_429_and_5xx_honouring_retry_after():
    sleeps = []
    flaky = Flaky(http_error(429, retry_after=2), http_error(503))
    result = call_remote("PubMed", lambda: flaky("esearch", {}), limiter=RateLimiter(1000), sleep=sleeps.append)
    assert b"31000001" in result and len(flaky.calls) == 3
    assert sleeps[0] == 2.0 and 0 < sleeps[1] < 2  # Retry-After, then exponential backoff with jitter


def test_gives_up_with_a_readable_error_and_does_not_retry_client_errors():
    flaky = Flaky(*(urllib.error.URLError("timed out") for _ in range(5)))
    with pytest.raises(SourceUnavailable, match="PubMed unreachable"):
        call_remote("PubMed", lambda: flaky("esearch", {}), limiter=RateLimiter(1000), sleep=lambda s: None)
    assert len(flaky.calls) == 3
    bad_request = Flaky(http_error(400))
    with pytest.raises(urllib.error.HTTPError):
        call_remote("PubMed", lambda: bad_request("esearch", {}), limiter=RateLimiter(1000), sleep=lambda s: None)
    assert len(bad_request.calls) == 1


def test_rate_limit_holds_across_threads(monkeypatch):
    import threading

    from amg.tools.evidence import remote_calls

    released, lock = [], threading.Lock()

    def sleep(seconds):  # a frozen clock: each call is released at the time the limiter makes it wait for
        with lock:
            released.append(100.0 + seconds)

    monkeypatch.setattr(remote_calls.time, "monotonic", lambda: 100.0)
    monkeypatch.setattr(remote_calls.time, "sleep", sleep)
    limiter = RateLimiter(10.0)

    def worker():
        for _ in range(3):
            limiter.wait()

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # the first call goes at once (no sleep); the other eight are spaced 0.1 s apart whatever their thread
    assert sorted(released) == pytest.approx([100.0 + 0.1 * i for i in range(1, 9)])


def test_no_key_means_three_per_second_and_key_ten(cache):
    assert PubMedClient("", "", cache=cache, transport=RecordedEntrez()).limiter.interval == pytest.approx(1 / 3)
    assert PubMedClient("", "k", cache=cache, transport=RecordedEntrez()).limiter.interval == pytest.approx(0.1)


def test_real_entrez_fails_fast_without_network(cache):
    client = PubMedClient("", "", cache=cache)  # the real Bio.Entrez transport; sockets are blocked in tests
    started = time.monotonic()
    with pytest.raises(SourceUnavailable):
        client.search("metformin")
    assert time.monotonic() - started < 10


def test_a_host_the_resolver_does_not_know_is_not_asked_again():
    """EAI_NONAME is the resolver's answer, not a fault; a temporary resolver failure is still retried."""
    import socket

    import requests

    from amg.tools.evidence.remote_calls import is_transient, unknown_host

    unknown = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    flaky = Flaky(urllib.error.URLError(unknown))  # a second call would answer
    with pytest.raises(SourceUnavailable, match="PubMed unreachable"):
        call_remote("PubMed", lambda: flaky("esearch", {}), limiter=RateLimiter(1000), sleep=lambda s: None)
    assert len(flaky.calls) == 1
    deep = requests.exceptions.ConnectionError(urllib.error.URLError(unknown))  # as requests wraps urllib3's errors
    assert is_transient(deep) and unknown_host(deep)
    temporary = urllib.error.URLError(socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution"))
    assert is_transient(temporary) and not unknown_host(temporary)
