"""Papers beyond PubMed ids: each scheme's id and link, abstracts as numbered sentences, and `amg ingest papers`
reading SciFact's corpus and DOI records beside PubMed's formats (a bad line skipped with its reason)."""

from __future__ import annotations

import json

import pytest

from amg.testing.fakes import DATA
from amg.tools.literature.index import LiteratureIndex
from amg.tools.literature.ingest import ingest_files
from amg.tools.literature.paper_ids import doi_id, label, link, s2_id
from amg.tools.literature.sentences import abstract_sentences, split_sentences

SCIFACT = DATA / "scifact_corpus_sample.jsonl"


@pytest.fixture
def index(tmp_path):
    idx = LiteratureIndex(tmp_path / "pubmed")
    yield idx
    idx.close()


def ingest(index, *paths, any_paper=True):
    return ingest_files(index, list(paths), progress=lambda path, size: lambda n: None, any_paper=any_paper)


def test_each_scheme_links_to_its_own_site():
    assert link("pmid:10354335") == "https://pubmed.ncbi.nlm.nih.gov/10354335/"
    assert link(doi_id("https://doi.org/10.1056/NEJMoa1800389")) == "https://doi.org/10.1056/nejmoa1800389"
    assert link(s2_id(4983)) == "https://api.semanticscholar.org/CorpusID:4983"
    assert [label("pmid:1"), label("s2:4983")] == ["PMID 1", "CorpusID 4983"]
    assert doi_id("not a doi") is None and s2_id("-3") is None and s2_id("x") is None


def test_a_pubmed_abstract_splits_into_sentences_section_by_section():
    abstract = (
        "BACKGROUND: Smith et al. studied it in the U.S. population. Results vary.\n"
        "RESULTS: Mortality fell (p < 0.01). Fig. 2 shows it.\nCONCLUSIONS: It works."
    )
    assert abstract_sentences(abstract) == [
        "BACKGROUND Smith et al. studied it in the U.S. population.",
        "Results vary.",
        "RESULTS Mortality fell (p < 0.01).",
        "Fig. 2 shows it.",
        "CONCLUSIONS It works.",
    ]
    assert split_sentences("J. Smith found 2.5 mg. It was safe.") == ["J. Smith found 2.5 mg.", "It was safe."]


def test_scifact_corpus_is_ingested_with_its_own_ids_and_sentences(index):
    report = ingest(index, SCIFACT)
    assert (report.added, report.skipped) == (3, {})
    [hit, *_] = index.search("vitamin D hip fractures older adults")
    assert hit.key == "s2:1001"
    [paper] = index.fetch(["s2:1002"])
    assert paper.evidence_id == "s2:1002" and paper.pmid == ""
    assert paper.url == "https://api.semanticscholar.org/CorpusID:1002"
    assert paper.numbered()[2] == (
        "RESULTS Women who received vitamin D had 26% more fractures than women who received placebo."
    )
    again = ingest(index, SCIFACT)
    assert (again.added, again.skipped) == (0, {"already held, unchanged": 3})


def test_pubmed_records_and_papers_share_the_index(index):
    ingest(index, DATA / "pubmed_baseline.xml", SCIFACT)
    assert index.stats()["records"] == 6 and index.in_step()
    [article] = index.fetch(["10354335"])
    assert article.numbered()[-1].startswith("CONCLUSIONS Medical students can contribute")
    assert article.evidence_id == "pmid:10354335"


def test_ingest_pubmed_still_reads_only_pubmed_records(index):
    report = ingest(index, SCIFACT, any_paper=False)
    assert report.added == 0 and report.skipped == {"missing or non-numeric PMID": 3}


def test_bad_lines_are_skipped_with_their_reason_and_nothing_half_written(index, tmp_path):
    lines = [
        json.dumps({"doc_id": 7, "title": "No sentences", "abstract": []}),
        "this is not json",
        json.dumps({"doc_id": 8, "title": "Odd", "abstract": [1, 2]}),
        json.dumps({"doc_id": "abc", "title": "Bad id", "abstract": ["A sentence."]}),
        json.dumps({"title": "No id at all", "abstract": ["A sentence."]}),
        json.dumps({"doi": "10.1000/xyz.1", "title": "A DOI paper", "abstract": "It works. It is safe."}),
        json.dumps({"pmid": "123", "year": 2001, "sections": [{"label": "RESULTS", "text": "A fell. B rose."}]}),
    ]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    report = ingest(index, path)
    assert report.added == 2
    assert report.skipped == {
        "not a JSON object": 1,
        "abstract has no sentences": 1,
        "abstract holds something other than sentences": 1,
        "doc_id is not a corpus id (a positive integer)": 1,
        "no paper id (pmid, doi or doc_id)": 1,
    }
    assert index.stats()["records"] == 2
    [pubmed] = index.fetch(["123"])
    assert pubmed.numbered() == ["RESULTS A fell.", "B rose."] and pubmed.url == "https://pubmed.ncbi.nlm.nih.gov/123/"
    [paper] = index.fetch(["doi:10.1000/xyz.1"])
    assert paper.numbered() == ["It works.", "It is safe."] and paper.url == "https://doi.org/10.1000/xyz.1"


def test_a_file_in_no_format_the_index_reads_is_refused_in_one_line(index, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("vitamin D prevents fractures\n")
    report = ingest(index, path)
    assert report.failed_files == {
        str(path): 'not PubMed XML (<PubmedArticleSet>) or JSON lines ({"pmid"|"doc_id"|"doi": …})'
    }
    assert index.stats()["records"] == 0


def test_a_citation_shows_the_link_of_its_own_scheme():
    from amg.graphs.reply import chat_reply

    def cited(n, ident, pmid=None):
        return {"n": n, "id": ident, "pmid": pmid, "title": f"Paper {n}", "url": link(ident), "quote": ""}

    shown = chat_reply(
        {
            "answer": "Supported.",
            "citations": [cited(1, "pmid:10354335", "10354335"), cited(2, "doi:10.1000/xyz.1"), cited(3, "s2:4983")],
        }
    )
    assert "[1] Paper 1 (PMID 10354335) https://pubmed.ncbi.nlm.nih.gov/10354335/" in shown
    assert "[2] Paper 2 (DOI 10.1000/xyz.1) https://doi.org/10.1000/xyz.1" in shown
    assert "[3] Paper 3 (CorpusID 4983) https://api.semanticscholar.org/CorpusID:4983" in shown
    assert "pubmed.ncbi" not in shown.split("[2]")[1]


def test_sentence_and_title_vectors_are_computed_once_and_kept(tmp_path):
    from amg.tools.literature.pubmed_xml import Article
    from amg.tools.literature.sentence_vectors import SentenceVectors

    calls = []

    def embed(texts):
        calls.append(list(texts))
        return [[1.0, 0.0] if "hip" in t else [0.0, 1.0] for t in texts]

    paper = Article(pmid="", title="Hip study", abstract="", paper="s2:1", sentences=["It helps hips.", "Done."])
    vectors = SentenceVectors(tmp_path / "v.sqlite", "toy", embed)
    first = vectors.of([paper])["s2:1"]
    assert first.shape == (2, 2) and vectors.titles([paper])["s2:1"].shape == (1, 2)
    again = SentenceVectors(tmp_path / "v.sqlite", "toy", embed)
    assert (again.of([paper])["s2:1"] == first).all() and len(calls) == 2, "read back, not embedded again"
    revised = Article(pmid="", title="Hip study", abstract="", paper="s2:1", sentences=["Changed."])
    assert again.of([revised])["s2:1"].shape == (1, 2) and len(calls) == 3, "a revised record is embedded anew"
