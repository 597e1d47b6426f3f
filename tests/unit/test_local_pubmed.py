"""The local index read as PubMed: same records downstream, chosen by AMG_PUBMED, question-aware queries."""

from __future__ import annotations

import json

import pytest

from amg.cli.main import main
from amg.testing.fakes import DATA, RecordedEntrez
from amg.tools.evidence.finder import EvidenceFinder
from amg.tools.evidence.pubmed import PubMedClient, entrez_term
from amg.tools.evidence.pubmed_sources import LocalPubMed, PubMedSources
from amg.tools.evidence.remote_calls import SourceUnavailable
from amg.tools.evidence.request_cache import RequestCache
from amg.tools.literature.index import LiteratureIndex
from amg.tools.literature.ingest import ingest_files


@pytest.fixture
def local(tmp_path):
    index = LiteratureIndex(tmp_path / "pubmed")
    ingest_files(
        index, [DATA / "efetch_metformin.xml", DATA / "pubmed_baseline.xml"], progress=lambda p, s: lambda n: None
    )
    yield LocalPubMed(index)
    index.close()


@pytest.fixture
def remote(tmp_path):
    return PubMedClient("me@example.org", "", cache=RequestCache(tmp_path / "cache.sqlite"), transport=RecordedEntrez())


class Unreachable:
    def search_articles(self, *args, **kwargs):
        raise SourceUnavailable("PubMed unreachable (no network)")


def test_local_records_are_the_remote_records(local, remote):
    """An efetch response ingested as a file gives the same evidence records as Entrez returning it."""
    pubmed = lambda choice, client: EvidenceFinder(pubmed=PubMedSources(choice, client, local=local))  # noqa: E731
    from_remote = pubmed("remote", remote).find_evidence("metformin", ["pubmed"], k=2)
    from_local = pubmed("local", None).find_evidence("metformin", ["pubmed"], k=5)
    by_id = {r.id: r for r in from_local.records}
    assert [r.id for r in from_remote.records] == ["pmid:31000001", "pmid:31000002"]
    same = lambda props: {k: v for k, v in props.items() if k != "retrieved_at"}  # noqa: E731
    for record in from_remote.records:
        assert same(by_id[record.id].as_props()) == same(record.as_props())
        assert from_local.texts[record.id] == from_remote.texts[record.id]


def test_auto_reads_the_local_index_when_ncbi_cannot_be_reached(local):
    sources = PubMedSources("auto", Unreachable(), local=local)
    found = sources.search_articles("quality assurance", 3, context="Can medical students help in day surgery?")
    assert found[0].pmid == "10354335"
    with pytest.raises(SourceUnavailable):
        PubMedSources("remote", Unreachable(), local=local).search_articles("metformin", 3)


def test_auto_prefers_ncbi_and_both_merges_by_pmid(local, remote):
    assert [a.pmid for a in PubMedSources("auto", remote, local=local).search_articles("metformin", 5)] == [
        "31000001",
        "31000002",
    ]
    merged = [
        a.pmid for a in PubMedSources("both", remote, local=local).search_articles("metformin lactic acidosis", 5)
    ]
    assert sorted(merged) == sorted(set(merged)) and {"31000001", "31000002", "20000001"} <= set(merged)


def test_local_or_both_without_an_index_is_a_clear_error(remote):
    with pytest.raises(ValueError, match="amg ingest pubmed"):
        PubMedSources("local", remote, local=None)
    with pytest.raises(ValueError, match="choose auto, remote, local, both"):
        PubMedSources("nearby", remote, local=None)


def test_queries_carry_the_question():
    assert (
        entrez_term("metformin", "Does metformin cause lactic acidosis in renal failure?")
        == "metformin AND (cause OR lactic OR acidosis OR renal OR failure)"
    )
    assert entrez_term("metformin") == "metformin"


def test_question_words_rank_the_paper_that_answers_it(local):
    """The entity alone ranks metformin papers by BM25 alone; with the question, the renal one comes first."""
    question = "Is lactic acidosis a risk for metformin users with renal impairment?"
    assert local.search("metformin", 3, context=question)[0] == "20000001"
    assert local.search("follow-up of metformin's users AND (OR) NOT", 3)  # no syntax reaches the engine


def test_cli_ingest_and_search(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("AMG_DATA_DIR", str(tmp_path / "home"))
    assert main(["search", "pubmed", "metformin"]) == 2
    assert "amg ingest pubmed" in capsys.readouterr().err
    assert main(["ingest", "pubmed", str(DATA / "pubmed_baseline.xml"), str(tmp_path / "missing.xml")]) == 1
    out = capsys.readouterr().out
    assert "added 3, updated 0, deleted 0, skipped 2" in out and "missing.xml: no such file" in out
    assert main(["search", "pubmed", "medical students day surgery metformin", "-k", "2", "--json"]) == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert results[0]["pmid"] == "10354335" and results[0]["year"] == 1999 and len(results) == 2
