"""Textbook passages: chunking with the model's tokenizer, metadata, skip-unchanged, retrieval."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from amg.tools.evidence.finder import EvidenceFinder
from amg.tools.vectors.embeddings import load_embedder, model_path
from amg.tools.vectors.passages import PassageStore, chunk_text


@pytest.fixture(scope="module")
def minilm():
    return model_path("minilm", Path("/nonexistent"))


@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "corpus"
    shutil.copytree(Path(__file__).parents[1] / "data" / "corpus", folder)
    return folder


def test_chunks_overlap_by_tokens(minilm):
    tokenizer = load_embedder(str(minilm)).tokenizer
    text = " ".join(f"word{i}" for i in range(700))
    spans = chunk_text(text, tokenizer, size=100, overlap=20)
    ids = [tokenizer(text[a:b], add_special_tokens=False)["input_ids"] for a, b in spans]
    assert all(len(i) <= 100 for i in ids)
    first_tail = tokenizer(text[spans[0][0] : spans[0][1]], add_special_tokens=False)["input_ids"][-20:]
    assert ids[1][:20] == first_tail, "consecutive chunks share 20 tokens"
    assert spans[-1][1] == len(text)
    with pytest.raises(ValueError):
        chunk_text(text, tokenizer, size=10, overlap=10)


def test_ingest_search_and_skip_unchanged(tmp_path, corpus, minilm):
    (corpus / "binary.txt").write_bytes(b"\x00\x01\x02" * 100)
    store = PassageStore(tmp_path / "chroma", minilm, size=64, overlap=16)
    report = store.ingest([corpus, tmp_path / "missing.txt"])
    assert len(report.files_ingested) == 3 and report.chunks >= 4
    assert any("binary" in p for p in report.problems) and any("no such file" in p for p in report.problems)
    top = store.search("metformin mechanism", k=1)[0]
    assert top.source.endswith("pharmacology.txt") and "hepatic glucose production" in top.text
    meta = store.collection.get(limit=1, include=["metadatas"])["metadatas"][0]
    assert {"file", "source", "chunk", "start", "end", "sha256"} <= set(meta)
    again = store.ingest([corpus])
    assert again.chunks == 0 and len(again.files_skipped) == 3
    (corpus / "infectious.txt").write_text("Rifampicin colours urine orange.")
    changed = store.ingest([corpus])
    assert changed.files_ingested == [str(corpus / "infectious.txt")]
    assert store.search("orange urine", k=1)[0].text == "Rifampicin colours urine orange."


def test_jsonl_with_text_field(tmp_path, minilm):
    path = tmp_path / "notes.jsonl"
    path.write_text('{"id": "n1", "text": "Aspirin irreversibly inhibits cyclooxygenase."}\nnot json\n')
    store = PassageStore(tmp_path / "chroma", minilm)
    report = store.ingest([path])
    assert report.chunks == 1 and "skipped 1 line" in report.problems[0]
    assert store.search("cyclooxygenase", k=1)[0].source == f"{path}#n1"


def test_a_passage_knows_its_file_from_any_working_directory(tmp_path, minilm, monkeypatch):
    (tmp_path / "notes.txt").write_text("Metformin often causes diarrhea.")
    monkeypatch.chdir(tmp_path)
    store = PassageStore(tmp_path / "chroma", minilm, size=64, overlap=16)
    store.ingest([Path("notes.txt")])
    top = store.search("metformin diarrhea", k=1)[0]
    assert top.source == "notes.txt" and top.file == str(tmp_path.resolve() / "notes.txt")
    assert Path(top.file).as_uri().startswith("file:///"), "a link a browser opens (file://notes.txt names a host)"


def test_off_topic_chapters_of_a_small_corpus_are_not_evidence(tmp_path, minilm):
    """The demo textbooks have three chapters, so a search returns all three, asthma's too."""
    store = PassageStore(tmp_path / "chroma", minilm)
    store.ingest([Path(__file__).parents[2] / "examples" / "textbook"])
    every = EvidenceFinder(passages=store).find_evidence("Type 2 diabetes mellitus", ["textbook"])
    on_topic = EvidenceFinder(passages=store, min_passage_score=0.3).find_evidence(
        "Type 2 diabetes mellitus", ["textbook"]
    )
    assert len(every.records) == 3
    assert [Path(r.title).name for r in on_topic.records] == ["endocrinology.md"]
    assert set(on_topic.texts) == {on_topic.records[0].id}
