"""The local PubMed index on files in NLM's formats: ingest, revise, delete, refuse, search."""

from __future__ import annotations

import gzip
import json
import os

import pytest

from amg.testing.fakes import DATA
from amg.tools.literature import jsonl_records
from amg.tools.literature.index import LiteratureIndex
from amg.tools.literature.ingest import ingest_files

BASELINE, UPDATE = DATA / "pubmed_baseline.xml", DATA / "pubmed_update.xml"


@pytest.fixture
def index(tmp_path):
    idx = LiteratureIndex(tmp_path / "pubmed")
    yield idx
    idx.close()


def ingest(index, *paths):
    return ingest_files(index, list(paths), progress=lambda path, size: lambda n: None)


def test_baseline_is_read_with_everything_the_citation_needs(index):
    report = ingest(index, BASELINE)
    assert (report.added, report.updated, report.deleted) == (3, 0, 0)
    assert report.skipped == {"no title and no abstract": 1, "book record (no journal article)": 1}
    [hit, *_] = index.search("Can medical students contribute to quality assurance programmes in day surgery?")
    assert hit.pmid == "10354335"
    [article] = index.fetch(["10354335"])
    assert article.title == "Can medical students contribute to quality assurance programmes in day surgery?"
    assert (article.year, article.journal, article.doi) == (1999, "Journal of one-day surgery", "10.1000/day.1999.9")
    assert article.url == "https://pubmed.ncbi.nlm.nih.gov/10354335/"
    assert article.abstract.splitlines()[-1].startswith("CONCLUSIONS: Medical students can contribute")
    assert article.mesh_terms == ["Ambulatory Surgical Procedures", "Students, Medical"]
    assert article.conclusion_first().splitlines()[:3] == [
        article.title,
        "CONCLUSIONS: Medical students can contribute to quality assurance programmes in day surgery.",
        "BACKGROUND: Audit of patient satisfaction after day surgery is labour-intensive.",
    ]
    assert index.fetch(["20000002"])[0].year == 2011  # a MedlineDate


def test_the_same_file_twice_changes_nothing(index):
    ingest(index, BASELINE)
    before = index.stats()["records"], index.fulltext.count()
    again = ingest(index, BASELINE)
    assert (again.added, again.updated) == (0, 0) and again.skipped["already held, unchanged"] == 3
    assert (index.stats()["records"], index.fulltext.count()) == before == (3, 3)


def test_update_file_revises_adds_and_deletes(index):
    ingest(index, BASELINE)
    report = ingest(index, UPDATE)
    assert (report.added, report.updated, report.deleted) == (1, 1, 1)
    assert report.skipped == {"deletion of a PMID not held": 1}
    assert index.fetch(["20000001"])[0].doi == "10.2337/dc08-0001"
    assert index.fetch(["20000002"]) == []
    assert "20000002" not in [h.pmid for h in index.search("inhaled corticosteroids asthma exacerbations")]
    assert index.fulltext.count() == index.stats()["records"] == 3
    # the baseline read again afterwards neither rolls the revision back nor brings the deleted record back
    late = ingest(index, BASELINE)
    assert late.skipped["older revision than the one held"] == 1 and late.skipped["deleted by an update file"] == 1
    assert index.fetch(["20000001"])[0].doi == "10.2337/dc08-0001" and index.fetch(["20000002"]) == []


def test_year_filter_as_entrez_mindate(index):
    ingest(index, BASELINE, UPDATE)
    assert [h.pmid for h in index.search("metformin lactic acidosis heart failure", min_year=2010)] == ["20000004"]
    assert {h.pmid for h in index.search("metformin lactic acidosis heart failure", max_year=2010)} == {"20000001"}


def test_gzip_and_jsonl_in_the_corpus_format(index, tmp_path):
    gz = tmp_path / "pubmed25n0001.xml.gz"
    gz.write_bytes(gzip.compress(BASELINE.read_bytes()))
    rows = [
        {
            "pmid": "21000001",
            "year": "2004",
            "mesh": ["Aspirin"],
            "title": "Aspirin after stroke",
            "sections": [
                {"label": "BACKGROUND", "text": "Aspirin is given after ischaemic stroke."},
                {"label": "CONCLUSIONS", "text": "Aspirin reduced recurrent stroke."},
            ],
        },
        {"pmid": "21000002", "abstract": "Statins lower LDL cholesterol.", "journal": "Lancet", "doi": "10.1/x"},
        {"pmid": "PMC123", "abstract": "not a PMID"},
        {"pmid": "21000003"},
        ["not", "an", "object"],
    ]
    jsonl = tmp_path / "corpus.jsonl"
    jsonl.write_bytes(b"\n".join(json.dumps(r).encode() for r in rows) + b'\n{broken\n\xff\xfe{"pmid": 1}\n\n')
    report = ingest(index, gz, jsonl)
    assert report.added == 5 and not report.failed_files
    assert report.skipped == {
        "no title and no abstract": 2,
        "book record (no journal article)": 1,
        "missing or non-numeric PMID": 1,
        "not a JSON object": 2,
        "not UTF-8": 1,
    }
    [aspirin] = index.fetch(["21000001"])
    assert (
        aspirin.abstract
        == "BACKGROUND: Aspirin is given after ischaemic stroke.\nCONCLUSIONS: Aspirin reduced recurrent stroke."
        and aspirin.year == 2004
        and aspirin.mesh_terms == ["Aspirin"]
    )
    assert index.search("statins LDL")[0].pmid == "21000002"


def test_a_line_over_the_cap_is_passed_over_not_held(index, tmp_path, monkeypatch):
    monkeypatch.setattr(jsonl_records, "MAX_LINE_BYTES", 1000)
    path = tmp_path / "big.jsonl"
    path.write_text(
        json.dumps({"pmid": "1", "abstract": "x " * 5000})
        + "\n"
        + json.dumps({"pmid": "2", "abstract": "kept after the long line"})
        + "\n"
    )
    report = ingest(index, path)
    assert report.added == 1 and report.skipped == {"line longer than 1,000 bytes": 1}
    assert index.fetch(["2"])[0].abstract == "kept after the long line"


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID><Article><ArticleTitle>&lol3;</ArticleTitle>
</Article></MedlineCitation></PubmedArticle></PubmedArticleSet>"""
EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE PubmedArticleSet [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>2</PMID><Article><ArticleTitle>&xxe;</ArticleTitle>
</Article></MedlineCitation></PubmedArticle></PubmedArticleSet>"""


@pytest.mark.parametrize(
    "name, body, expected",
    [
        ("laughs.xml", BILLION_LAUGHS, "refused"),
        ("xxe.xml", EXTERNAL_ENTITY, "refused"),
        ("page.xml", b"<html><body>not pubmed</body></html>", "not PubMed XML"),
        ("picture.xml", b"\x89PNG\r\n\x1a\n\x00\x00", "not PubMed XML"),
        ("empty.xml", b"", "empty file"),
    ],
)
def test_crafted_files_are_refused_with_a_reason(index, tmp_path, name, body, expected):
    path = tmp_path / name
    path.write_bytes(body)
    report = ingest(index, path, BASELINE)  # the next file is still read
    assert expected in report.failed_files[str(path)] and report.added == 3
    assert index.fetch(["1", "2"]) == []


def test_damaged_files_keep_the_records_before_the_damage(index, tmp_path):
    body = BASELINE.read_bytes()
    cut = body.index(b"<PubmedArticle>", body.index(b"20000001"))  # after two whole records
    padded = body.replace(
        b"</PubmedArticleSet>", b"<!-- " + os.urandom(6000).hex().encode() + b" --></PubmedArticleSet>"
    )
    truncated = tmp_path / "cut.xml.gz"
    truncated.write_bytes(gzip.compress(padded)[:-3000])  # cut inside the trailing comment, after every record
    malformed = tmp_path / "bad.xml"
    malformed.write_bytes(body[:cut] + b"<PubmedArticle><MedlineCitation></Oops>")
    report = ingest(index, malformed)
    assert "malformed XML" in report.failed_files[str(malformed)] and report.added == 2
    report = ingest(index, truncated)
    assert "truncated gzip" in report.failed_files[str(truncated)] and report.added == 1
    assert index.stats()["records"] == 3 and index.fulltext.count() == 3


def test_a_crash_between_engine_and_records_is_mended_by_the_next_ingest(index, monkeypatch):
    def crash(*args, **kwargs):
        raise KeyboardInterrupt  # as if killed after the engine's commit, before the records' commit

    monkeypatch.setattr(index.records, "write", crash)
    with pytest.raises(KeyboardInterrupt):
        ingest(index, BASELINE)
    assert index.search("medical students quality assurance") == []  # found by the engine, not held: not shown
    monkeypatch.undo()
    report = ingest(index, BASELINE)
    assert report.added == 3 and index.fulltext.count() == index.stats()["records"] == 3
