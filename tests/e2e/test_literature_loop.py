"""The literature loop on a research question: the question searched in a two-abstract local index, the answer
citing the paper, its finding learned with the PMID, and the offline pass reading that finding."""

from __future__ import annotations

import pytest
from langchain_openai import ChatOpenAI

from amg.graphs.context import Context
from amg.graphs.qa_graph import graph
from amg.graphs.resources import Resources, install
from amg.testing.fakes import DATA
from amg.testing.scripted_llm import answer_lines, asks_for_answer, asks_for_entities, prompt_text, requested_tool
from amg.tools.evidence.finder import EvidenceFinder
from amg.tools.evidence.pubmed_sources import LocalPubMed, PubMedSources
from amg.tools.literature.index import LiteratureIndex
from amg.tools.literature.ingest import ingest_files
from amg.tools.llm.chat import ModelUnavailable
from tests.e2e.bench_args import bench_args

QUESTION = "Can medical students contribute to quality assurance programmes in day surgery?"
VERDICTS = {"A": "yes", "B": "no", "C": "maybe"}
SENTENCE = "Medical students can contribute to quality assurance programmes in day surgery."


def responder(body: dict) -> dict:
    if asks_for_entities(body):
        return {"content": "medical students | other\nday surgery | procedure"}
    if requested_tool(body) == "StudyFinding":
        return {
            "tool": "StudyFinding",
            "args": {
                "subject": "Medical students",
                "relation": "improves",
                "object": "quality assurance programmes",
                "population": "patients after day-case operations",
                "sentence": SENTENCE,
                "score": 8,
            },
        }
    if asks_for_answer(body):
        return answer_lines(option="A", confidence=0.8, citations=[1])
    return {"content": "The study concludes that medical students can contribute."}


def literature_loop(store, scripted_server, tmp_path, monkeypatch):
    """(run, server): ``run`` asks the QA graph over the two-abstract index with the scripted model."""
    monkeypatch.setattr("amg.graphs.resources.extraction_reliability", lambda model: 1.0)
    index = LiteratureIndex(tmp_path / "pubmed")
    ingest_files(
        index, [DATA / "pubmed_baseline.xml", DATA / "efetch_metformin.xml"], progress=lambda p, s: lambda n: None
    )
    server = scripted_server(responder)

    def run(payload: dict, **context) -> dict:
        ctx = Context(data_dir=str(tmp_path), sources="pubmed", **context)
        llm = ChatOpenAI(base_url=server.base_url, api_key="test", model="scripted", temperature=0)
        finder = EvidenceFinder(pubmed=PubMedSources("local", None, local=LocalPubMed(index)))
        install(Resources(ctx, store=store, llm=llm, evidence=finder))
        return graph.invoke(payload, context=ctx)

    yield run, server
    index.close()


@pytest.fixture
def loop(store, scripted_server, tmp_path, monkeypatch):
    yield from literature_loop(store, scripted_server, tmp_path, monkeypatch)


def test_a_research_question_cites_its_paper_and_learns_its_finding(loop, store):
    run, server = loop
    result = run({"question": QUESTION, "options": VERDICTS}, evidence_mode="hybrid")
    assert result["option"] == "A" and result["claim_gap"]
    assert [(c["pmid"], c["url"]) for c in result["citations"]] == [
        ("10354335", "https://pubmed.ncbi.nlm.nih.gov/10354335/")
    ]
    asked = [
        "answer" if asks_for_answer(b) else "parse" if asks_for_entities(b) else requested_tool(b)
        for b in server.requests
    ]
    assert asked == ["parse", "answer", "StudyFinding"], "the studies are read by the answer, no chain of thought"
    assert "The answer this study gives the question: yes." in prompt_text(server.requests[2])
    reasoning = prompt_text(server.requests[1])
    assert reasoning.index("CONCLUSIONS") < reasoning.index("BACKGROUND"), "the conclusion is read first"
    learned = [(r["source"], r["type"], r["target"], r["evidence_ids"]) for r in result["new_relations"]]
    assert learned == [("medical students", "improves", "quality assurance programmes", ["pmid:10354335"])], (
        "written as the question entity it names"
    )
    stored = store.outgoing("medical student", "improves")
    assert stored[0]["target"] == "quality assurance programme"
    assert "[studied in: patients after day-case operations]" in stored[0]["props"]["description"]
    assert stored[0]["props"]["confidence"] == pytest.approx(0.8)


def test_an_answer_that_cites_nothing_cites_the_studies_it_read(loop):
    """The 1.5B wrote "Citations: none" under answers resting on the one paper it read: that paper is cited."""
    run, server = loop
    server.responder = (
        lambda body: answer_lines(option="A", confidence=0.8) if asks_for_answer(body) else responder(body)
    )
    for mode in ("hybrid", "offline"):  # the paper read at length (its finding learned after); the finding read
        result = run({"question": QUESTION, "options": VERDICTS}, evidence_mode=mode)
        assert [c["pmid"] for c in result["citations"]] == ["10354335"], mode
        assert ("search_claim" in result["timings_ms"]) == (mode == "hybrid")
        assert result["confidence_basis"]["cited"] == "the studies read (the reply cited none)"
    exam = run({"question": "What does day surgery involve?", "options": {}}, evidence_mode="offline")
    assert exam["citations"] == [], "an exam or open question cites only what its reply cites"


def test_with_learning_off_the_answer_is_the_same_and_nothing_is_written(loop, store):
    run, server = loop
    result = run({"question": QUESTION, "options": VERDICTS}, evidence_mode="hybrid", learn="off")
    assert result["option"] == "A" and [c["pmid"] for c in result["citations"]] == ["10354335"]
    assert not result["new_relations"] and not store.outgoing("medical student", "improves")
    assert not any(requested_tool(b) == "StudyFinding" for b in server.requests)


def test_a_research_question_with_no_entity_still_reaches_the_literature(loop, scripted_server, monkeypatch):
    run, server = loop
    server.responder = lambda body: {"content": ""} if asks_for_entities(body) else responder(body)
    result = run({"question": QUESTION, "options": VERDICTS}, evidence_mode="hybrid")
    assert result["entities"] == [] and [c["pmid"] for c in result["citations"]] == ["10354335"]


def test_a_fault_while_learning_keeps_the_answer(loop, monkeypatch):
    run, _ = loop

    def timed_out(*args, **kwargs):
        raise ModelUnavailable("model endpoint did not answer within 180 s")

    monkeypatch.setattr("amg.graphs.learning.learn_finding", timed_out)
    result = run({"question": QUESTION, "options": VERDICTS}, evidence_mode="hybrid")
    assert result["option"] == "A" and [c["pmid"] for c in result["citations"]] == ["10354335"]
    assert result["learning_faults"] == 1
    assert "learning after the answer failed: model endpoint did not answer within 180 s" in result["degradations"]


def test_bench_reports_the_literature_figures(loop, tmp_path):
    """kg hybrid and rag on a one-question set from that paper: found, cited, learned."""

    from amg.cli import bench as cli_bench
    from amg.graphs.resources import resources_for

    run, _ = loop
    run({"question": "warm up"}, evidence_mode="offline")  # installs the resources the bench finds
    dataset = tmp_path / "lit.jsonl"
    dataset.write_text(
        '{"id": "p1", "question": "%s", "options": {"A": "yes", "B": "no", "C": "maybe"}, '
        '"answer": "A", "subject": "pubmedqa", "pmids": ["10354335"]}\n' % QUESTION
    )
    for method, mode in (("kg", "hybrid"), ("rag", "hybrid")):
        args = bench_args(dataset, method, tmp_path / "out")
        ctx = Context(data_dir=str(tmp_path), sources="pubmed", evidence_mode=mode)
        cli_bench._bench(args, ctx, resources_for(ctx))
    kg = __import__("json").loads((tmp_path / "out" / "kg-hybrid" / "summary.json").read_text())
    rag = __import__("json").loads((tmp_path / "out" / "rag" / "summary.json").read_text())
    assert kg["literature"] == {
        "n": 1,
        "gold_recall": 1.0,
        "citation_hit": 1.0,
        "citation_precision": 1.0,
        "citing_share": 1.0,
    }
    assert kg["learned_per_question"] == 1 and kg["learning_faults"] == 0
    row = __import__("json").loads((tmp_path / "out" / "kg-hybrid" / "results.jsonl").read_text())
    assert 0 < row["answer_s"] < row["latency_s"] and row["learn_s"] > 0  # the answer's time ends where learning starts
    assert rag["literature"]["gold_recall"] == 1.0 and rag["literature"]["citation_hit"] == 1.0
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| kg-hybrid |" in report and "citation_hit 1.000" in report
    assert kg["citation_relevance"]["printed_items"] == 1 and "citation relevance" in report
    assert rag["citation_relevance"] is None, "rag's citations carry no quotes to check"


def test_ask_json_and_the_evidence_page_show_the_study(loop, tmp_path):
    from amg.cli.answer_format import json_result
    from amg.cli.evidence_picture import render

    run, _ = loop
    result = run({"question": QUESTION}, evidence_mode="hybrid")
    learned = json_result(result)["learned"]
    assert [(x["relation"], x["pmids"]) for x in learned] == [("improves", ["10354335"])]
    assert learned[0]["finding"] == f"{SENTENCE} [studied in: patients after day-case operations]"
    page = render({**result, "question": QUESTION})
    assert "What the studies found" in page and "medical students improves quality assurance programmes" in page
    assert 'href="https://pubmed.ncbi.nlm.nih.gov/10354335/"' in page.split("What the studies found")[1]


def test_a_weak_finding_on_a_busy_entity_still_reaches_the_reasoner(loop, store):
    """60 curated 1.00 edges fill the neighbour budget (50 per node); a finding at the weakest confidence one is
    written with (score 4 x reliability 0.73), under tau and to something the question does not name, is read
    beside it."""
    from amg.tools.kg.records import EvidenceRecord, RelationRecord

    run, server = loop
    vocab = EvidenceRecord(id="vocab:x", kind="vocabulary", title="Students")
    paper = EvidenceRecord(id="pmid:10354335", kind="pubmed", title="Can medical students contribute?", pmid="10354335")
    curated = [
        RelationRecord(
            f"student group {n}",
            "medical students",
            type="is_a",
            confidence=1.0,
            evidence_ids=["vocab:x"],
            score_raw=10,
            description="",
            origin="vocabulary:x",
        )
        for n in range(60)
    ]
    finding = RelationRecord(
        "medical students",
        "patient satisfaction audit",
        type="improves",
        confidence=0.29,
        evidence_ids=[paper.id],
        score_raw=4,
        description=SENTENCE,
        origin="pubmed",
        model="m",
    )
    store.upsert(evidence=[vocab, paper], relations=[*curated, finding])
    result = run({"question": QUESTION, "options": VERDICTS}, evidence_mode="offline")
    assert ("medical students", "improves", "patient satisfaction audit") in [
        (x["source"], x["relation"], x["target"]) for x in result["subgraph"]["links"]
    ]
    assert f'improves patient satisfaction audit (0.29) [1]: "{SENTENCE}' in prompt_text(server.requests[-1])


def test_kg_show_lists_the_learned_finding_with_its_pmid(loop, store, tmp_path, capsys):
    from types import SimpleNamespace

    from amg.cli.kg import _show

    run, _ = loop
    run({"question": QUESTION, "options": VERDICTS}, evidence_mode="hybrid")
    res = Resources(Context(data_dir=str(tmp_path)), store=store)
    _show(SimpleNamespace(entity="medical students", limit=25), res)
    shown = capsys.readouterr().out
    assert "study findings" in shown
    assert "0.80  medical students -improves-> quality assurance programmes  [pmid:10354335]" in shown
