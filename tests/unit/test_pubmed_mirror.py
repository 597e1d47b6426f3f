"""NLM's distribution read without a server: directory listings, checksum files, NLM's order, retraction marks,
and the record store's status and change journal (with its migration of an index stored before them)."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import sqlite3
import zlib

import pytest

from amg.testing.pubmed_mirror import FIXTURE_TREE, article, build_fixture_tree, fixture_records
from amg.tools.literature.index import LiteratureIndex
from amg.tools.literature.ingest import ingest_files
from amg.tools.literature.jsonl_records import record_from_row
from amg.tools.literature.mirror import MirrorError, in_nlm_order, listed_files, parse_md5
from amg.tools.literature.pubmed_xml import Article, read_articles
from amg.tools.literature.record_store import RecordStore, digest, encoded

# NLM's listing (Apache): the parent, a README, sort links, each file with its .md5, an absolute link
NLM_PAGE = """<html><head><title>Index of /pubmed/updatefiles</title></head><body><h1>Index of /pubmed/updatefiles</h1>
<pre>      <a href="?C=N;O=D">Name</a>          <a href="?C=M;O=A">Last modified</a>      <a href="?C=S;O=A">Size</a>
<hr>      <a href="/pubmed/">Parent Directory</a>                             -
      <a href="README.txt">README.txt</a>              2024-12-10 15:01  4.1K
      <a href="pubmed25n1275.xml.gz">pubmed25n1275.xml.gz</a>    2024-12-12 14:05   18M
      <a href="pubmed25n1275.xml.gz.md5">pubmed25n1275.xml.gz.md5</a>2024-12-12 14:05   60
      <a href='pubmed25n1277.xml.gz'>pubmed25n1277.xml.gz</a>    2024-12-14 14:05   21M
      <a href=pubmed25n1276.xml.gz>pubmed25n1276.xml.gz</a>    2024-12-13 14:05   25M
      <a href="https://ftp.ncbi.nlm.nih.gov/pubmed/updatefiles/pubmed25n1278.xml.gz">x</a>
      <a href="stats.html">stats.html</a>
      <a href="pubmed25n1275.xml.gz">again</a>
<hr></pre></body></html>"""
# python -m http.server's listing
PYTHON_PAGE = """<!DOCTYPE HTML><html lang="en"><head><title>Directory listing for /baseline/</title></head><body>
<h1>Directory listing for /baseline/</h1><hr><ul>
<li><a href="pubmed25n0001.xml.gz">pubmed25n0001.xml.gz</a></li>
<li><a href="pubmed25n0001.xml.gz.md5">pubmed25n0001.xml.gz.md5</a></li>
<li><a href="pubmed25n0002.xml.gz.partial">pubmed25n0002.xml.gz.partial</a></li>
</ul><hr></body></html>"""


def test_listings_give_the_distribution_files_once_each():
    assert listed_files(NLM_PAGE) == [
        "pubmed25n1275.xml.gz",
        "pubmed25n1277.xml.gz",
        "pubmed25n1276.xml.gz",
        "pubmed25n1278.xml.gz",
    ]
    assert listed_files(PYTHON_PAGE) == ["pubmed25n0001.xml.gz"]
    assert listed_files("<html>no links</html>") == []


def test_nlm_order_is_baseline_by_number_then_updates_by_number():
    updates = in_nlm_order("updatefiles", ["pubmed25n1277.xml.gz", "pubmed25n1275.xml.gz", "pubmed24n1300.xml.gz"])
    baseline = in_nlm_order("baseline", ["pubmed25n0010.xml.gz", "pubmed25n0002.xml.gz", "README.txt"])
    ordered = sorted(updates + baseline)
    assert [(f.folder, f.name) for f in ordered] == [
        ("baseline", "pubmed25n0002.xml.gz"),
        ("baseline", "pubmed25n0010.xml.gz"),
        ("updatefiles", "pubmed24n1300.xml.gz"),  # last year's release before this year's
        ("updatefiles", "pubmed25n1275.xml.gz"),
        ("updatefiles", "pubmed25n1277.xml.gz"),
    ]
    with pytest.raises(ValueError, match="not one of NLM's folders"):
        in_nlm_order("pubmed", [])


def test_md5_files_in_nlm_and_md5sum_form():
    hexa = "0123456789abcdef0123456789ABCDEF"
    assert parse_md5(f"MD5(pubmed25n0001.xml.gz)= {hexa}\n", "pubmed25n0001.xml.gz") == hexa.lower()
    assert parse_md5(f"{hexa}  pubmed25n0001.xml.gz\n", "pubmed25n0001.xml.gz") == hexa.lower()
    assert parse_md5(f"{hexa} *pubmed25n0001.xml.gz", "pubmed25n0001.xml.gz") == hexa.lower()
    with pytest.raises(MirrorError, match="checksum of another file"):
        parse_md5(f"MD5(pubmed25n0002.xml.gz)= {hexa}", "pubmed25n0001.xml.gz")
    for bad in ("<html>404 Not Found</html>", f"MD5(pubmed25n0001.xml.gz)= {hexa[:-1]}", ""):
        with pytest.raises(MirrorError, match="not a checksum file"):
            parse_md5(bad, "pubmed25n0001.xml.gz")


def test_the_fixture_tree_is_what_its_builder_writes_and_its_checksums_hold(tmp_path):
    built = build_fixture_tree(tmp_path)
    for (folder, name), _ in fixture_records().items():
        held = FIXTURE_TREE / folder / name
        assert held.read_bytes() == (built / folder / name).read_bytes(), "run python -m amg.testing.pubmed_mirror"
        listed = parse_md5((FIXTURE_TREE / folder / f"{name}.md5").read_text(), name)
        assert listed == hashlib.md5(held.read_bytes()).hexdigest()


def _read(xml: str) -> list:
    head = '<?xml version="1.0"?><PubmedArticleSet>'
    return list(read_articles(io.BytesIO((head + xml + "</PubmedArticleSet>").encode())))


def test_retraction_is_read_from_the_publication_type_or_a_retraction_notice():
    typed, linked, notice, plain = _read(
        article(1, "A", [("", "x")], types=("Journal Article", "Retracted Publication"))
        + article(2, "B", [("", "x")], retraction_in=99)
        + article(99, "Notice", [("", "x")], types=("Retraction of Publication",), retraction_of=2)
        + article(3, "C", [("", "x")])
    )
    assert typed.retracted and typed.retracted_in == []
    assert linked.retracted and linked.retracted_in == ["PMID 99"]
    assert not notice.retracted, "the retraction notice is not itself retracted"
    assert not plain.retracted
    jsonl = record_from_row(
        {"pmid": "5", "title": "t", "publication_types": ["Journal Article", "Retracted Publication"]}
    )
    assert jsonl.retracted and jsonl.publication_types == ["Journal Article", "Retracted Publication"]
    assert not record_from_row({"pmid": "6", "title": "t", "publication_types": "Retracted Publication"}).retracted


def test_a_record_stored_before_retractions_and_papers_were_kept_keeps_its_digest():
    record = Article(pmid="7", title="t", abstract="a", publication_types=["Journal Article"], revised="2020-01-01")
    later = {"retracted_in", "paper", "sentences"}  # fields added after records were first stored
    old_body = json.dumps({k: v for k, v in vars(record).items() if k not in later}, ensure_ascii=False).encode()
    assert encoded(record) == old_body and digest(encoded(record)) == digest(old_body)
    marked = Article(pmid="7", title="t", abstract="a", retracted_in=["PMID 9"])
    assert Article(**json.loads(encoded(marked))).retracted


OLD_SCHEMA = """CREATE TABLE records (
  pmid INTEGER PRIMARY KEY, digest TEXT NOT NULL, revised TEXT NOT NULL, year INTEGER, body BLOB NOT NULL
);
CREATE INDEX records_year ON records(year);
CREATE TABLE deleted (pmid INTEGER PRIMARY KEY);"""


def test_an_index_stored_before_retractions_were_kept_is_migrated(tmp_path):
    path = tmp_path / "records.sqlite"
    old = sqlite3.connect(path)
    old.executescript(OLD_SCHEMA)
    for pmid, types in ((1, ["Journal Article"]), (2, ["Journal Article", "Retracted Publication"])):
        body = json.dumps(vars(Article(pmid=str(pmid), title="t", abstract="a", publication_types=types)))
        old.execute("INSERT INTO records VALUES (?, 'd', '', NULL, ?)", (pmid, zlib.compress(body.encode())))
    old.commit()
    old.close()
    store = RecordStore(path)
    assert store.changes_after(0, 10) == [], "opening only adds the tables"
    assert store.backfill_status() == 1 and store.backfill_status() == 0, "found once"
    assert store.statuses(["1", "2"]) == {"2": "retracted"}
    assert [(pmid, kind, status) for _, pmid, kind, status in store.changes_after(0, 10)] == [
        ("2", "retracted", "retracted")
    ]
    assert store.stats()["retracted"] == 1 and store.index_id() == store.index_id()
    store.close()


def test_update_files_journal_what_the_graph_must_hear_of(tmp_path):
    index = LiteratureIndex(tmp_path / "pubmed")
    files = [FIXTURE_TREE / folder / name for folder, name in fixture_records()]
    reports = [ingest_files(index, [path], progress=lambda p, s: lambda n: None) for path in files]
    assert [(r.added, r.updated, r.deleted, r.retracted) for r in reports] == [
        (2, 0, 0, 0),
        (2, 0, 0, 0),
        (0, 1, 1, 0),
        (1, 1, 0, 1),  # the notice added; the paper revised to carry its retraction
    ]
    journal = [(pmid, kind, status) for _, pmid, kind, status in index.records.changes_after(0, 100)]
    assert journal == [
        ("20000001", "revised", None),
        ("20000002", "deleted", "deleted"),
        ("10354335", "retracted", "retracted"),
    ]
    assert index.records.statuses(["10354335", "20000002", "20000001", "20000099"]) == {
        "10354335": "retracted",
        "20000002": "deleted",
    }
    assert [a.pmid for a in index.fetch(["10354335"]) if a.retracted] == ["10354335"], "kept, marked"
    seq = index.records.last_change()
    again = ingest_files(index, files, progress=lambda p, s: lambda n: None)
    assert (again.added, again.updated, again.retracted) == (0, 0, 0)
    assert index.records.last_change() == seq, "a file read again journals nothing new"
    index.close()


def test_a_deleted_paper_brought_back_stands_again(tmp_path):
    index = LiteratureIndex(tmp_path / "pubmed")
    update = tmp_path / "u.xml.gz"
    update.write_bytes(
        gzip.compress(
            b'<PubmedArticleSet><DeleteCitation><PMID Version="1">42</PMID></DeleteCitation></PubmedArticleSet>'
        )
    )
    back = tmp_path / "b.xml"
    back.write_text("<PubmedArticleSet>" + article(42, "Back", [("", "Here again.")]) + "</PubmedArticleSet>")
    for path in (update, back):
        ingest_files(index, [path], progress=lambda p, s: lambda n: None)
    assert index.records.statuses(["42"]) == {} and index.fetch(["42"])[0].title == "Back"
    assert [kind for _, _, kind, _ in index.records.changes_after(0, 10)] == ["revised"]
    index.close()
