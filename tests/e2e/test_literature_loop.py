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


@pytest.fixture
def loop(store, scripted_server, tmp_path, monkeypatch):
    monkeypatch.setattr("amg.graphs.resources.extraction_reliability", lambda model: 1.0)
    index = LiteratureIndex(tmp_path / "pubmed")
    ingest_files(index, [DATA / "pubmed_baseline.xml", DATA / "efetch_metformin.xml"], lambda p, s: lambda n: None)
    server = scripted_server(responder)

    def run(payload: dict, **context) -> dict:
        ctx = Context(data_dir=str(tmp_path), sources="pubmed", **context)
        llm = ChatOpenAI(base_url=server.base_url, api_key="test", model="scripted", temperature=0)
        finder = EvidenceFinder(pubmed=PubMedSources("local", None, LocalPubMed(index)))
        install(Resources(ctx, store=store, llm=llm, evidence=finder))
        return graph.invoke(payload, context=ctx)

    yield run, server
    index.close()


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


def test_the_offline_pass_reads_the_paper_it_learned_from_as_hybrid_read_it_and_cites_it(loop):
    """Offline reads the kept paper at length, alone: its learned finding (one relation read from it) is not shown
    beside it, as it was not when hybrid first read the paper."""
    run, server = loop
    run({"question": QUESTION, "options": VERDICTS}, evidence_mode="hybrid")
    first = next(prompt_text(b) for b in server.requests if asks_for_answer(b))
    searched = len(server.requests)
    again = run({"question": QUESTION, "options": VERDICTS}, evidence_mode="offline")
    reasoning = next(prompt_text(b) for b in server.requests[searched:] if asks_for_answer(b))
    assert "improves quality assurance programmes (0.80)" not in reasoning
    assert reasoning.index("CONCLUSIONS") < reasoning.index("BACKGROUND")
    shown = reasoning[reasoning.index("<evidence>\n") : reasoning.index("</evidence>")]
    assert shown == first[first.index("<evidence>\n") : first.index("</evidence>")], "the same paper, read alike"
    assert [c["pmid"] for c in again["citations"]] == ["10354335"] and not again["new_relations"]
    held = run({"question": QUESTION, "options": VERDICTS}, evidence_mode="hybrid")
    assert not held["claim_gap"] and "search_claim" not in held["timings_ms"], "the graph holds the claim now"


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
        RelationRecord(f"student group {n}", "medical students", "is_a", 1.0, ["vocab:x"], 10, "", "vocabulary:x")
        for n in range(60)
    ]
    finding = RelationRecord(
        "medical students", "patient satisfaction audit", "improves", 0.29, [paper.id], 4, SENTENCE, "pubmed", "m"
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


def test_the_offline_pass_reads_a_finding_that_states_the_question_in_other_words(loop, store):
    """The finding's ends are not the question's entities (the scripted parser names medical students and day
    surgery); its ends and sentence state most of the question's words, so it is read; the first question's are not."""
    from amg.tools.kg.records import EvidenceRecord, RelationRecord

    run, server = loop
    paper = EvidenceRecord(id="pmid:10759659", kind="pubmed", title="Cystoscopy by nurses", pmid="10759659")
    sentence = "Trained nurse practitioners perform cystoscopy as accurately as consultant urologists."
    finding = RelationRecord(
        "urology nurse practitioner", "consultant urologist", "improves", 0.73, [paper.id], 8, sentence, "pubmed", "m"
    )
    store.upsert(evidence=[paper], relations=[finding], supports=[("urology nurse practitioner", paper.id)])
    stated = ("urology nurse practitioner", "improves", "consultant urologist")
    asked = run(
        {"question": "Can trained nurse practitioners perform cystoscopy accurately?", "options": VERDICTS},
        evidence_mode="offline",
    )
    assert stated in [(x["source"], x["relation"], x["target"]) for x in asked["subgraph"]["links"]]
    assert f'improves consultant urologist (0.73) [1]: "{sentence}' in prompt_text(server.requests[-1])
    other = run({"question": QUESTION, "options": VERDICTS}, evidence_mode="offline")
    assert stated not in [(x["source"], x["relation"], x["target"]) for x in other["subgraph"]["links"]]


def test_a_searched_question_reads_its_own_paper_not_other_studies_findings(loop, store):
    """Another paper's finding on a question entity, shown beside the paper the question's own search found, turned
    the 1.5B's verdict (PubMedQA dev 101-200 on a grown graph): hybrid reads its paper; offline, the finding."""
    from amg.tools.kg.records import EvidenceRecord, RelationRecord

    run, server = loop
    other = EvidenceRecord(id="pmid:10759659", kind="pubmed", title="Audits by students", pmid="10759659")
    said = "Medical students lowered the audit's response rate."
    store.upsert(
        evidence=[other],
        relations=[
            RelationRecord(
                "medical students", "patient satisfaction audit", "worsens", 0.73, [other.id], 8, said, "pubmed", "m"
            )
        ],
    )

    def answer_prompt() -> str:
        return next(prompt_text(b) for b in reversed(server.requests) if asks_for_answer(b))

    hybrid = run({"question": QUESTION, "options": VERDICTS}, evidence_mode="hybrid", learn="off")
    assert hybrid["claim_gap"] and said not in answer_prompt()
    assert "patient satisfaction audit" not in [x["target"] for x in hybrid["subgraph"]["links"]]
    assert [c["pmid"] for c in hybrid["citations"]] == ["10354335"]
    run({"question": QUESTION, "options": VERDICTS}, evidence_mode="offline")
    assert said in answer_prompt(), "with no paper of its own the question reads what the graph holds"


def test_a_paper_read_with_no_finding_kept_is_read_again_offline_from_what_the_graph_kept(loop, store):
    """The finding reader refused the paper's finding (a generic subject): the paper is kept all the same, read for
    the question's entities, and the offline pass reads it at length and cites it, with no call to re-read it."""
    run, server = loop

    def refused(body: dict) -> dict:
        if requested_tool(body) == "StudyFinding":
            finding = responder(body)
            return {**finding, "args": {**finding["args"], "subject": "symptoms"}}
        return responder(body)

    server.responder = refused
    first = run({"question": QUESTION, "options": VERDICTS}, evidence_mode="hybrid")
    assert first["new_relations"] == [] and any("finding reader" in d for d in first["degradations"])
    assert [p["id"] for p in store.papers_read(["medical student"], 5)] == ["pmid:10354335"]
    server.responder = responder
    searched = len(server.requests)
    again = run({"question": QUESTION, "options": VERDICTS}, evidence_mode="offline")
    reasoning = next(prompt_text(b) for b in server.requests[searched:] if asks_for_answer(b))
    assert "CONCLUSIONS" in reasoning and reasoning.index("CONCLUSIONS") < reasoning.index("BACKGROUND")
    assert [c["pmid"] for c in again["citations"]] == ["10354335"]
    assert not any(requested_tool(b) == "StudyFinding" for b in server.requests[searched:]), "offline reads, once"
    asked = "Does general anaesthesia for day surgery raise postoperative nausea in children?"
    other = run({"question": asked, "options": VERDICTS}, evidence_mode="offline")
    assert other["citations"] == [], "a paper stating too few of the question's words is not read"


def test_offline_reading_the_kept_paper_is_calibrated_by_the_map_fitted_on_hybrid_reading_it(
    loop, tmp_path, monkeypatch
):
    """The paper read at length is the reading hybrid's research map was fitted on: offline applies it too (its
    letter prior turns a "yes" leaning on the prior into "no"); a question answered from findings alone has no map."""
    import math

    from amg.tools.llm import confidence_maps
    from amg.tools.llm.confidence_maps import CalibrationMap

    monkeypatch.setattr(confidence_maps, "MAPS", tmp_path)
    confidence_maps.map_for.cache_clear()
    CalibrationMap(a=1.0, c=0.0, letter_prior={"A": 0.8, "B": 0.1, "C": 0.1}).save(
        confidence_maps.map_path("scripted", "kg-hybrid", "research")
    )
    said = {" yes": 0.6, " no": 0.3, " maybe": 0.1}
    steps = [
        {"token": "Answer", "logprob": 0.0, "top_logprobs": []},
        {"token": ":", "logprob": 0.0, "top_logprobs": []},
        {
            "token": " yes",
            "logprob": math.log(0.6),
            "top_logprobs": [{"token": t, "logprob": math.log(p)} for t, p in said.items()],
        },
    ]
    run, server = loop
    server.responder = lambda body: (
        {"content": "Answer: yes\nConfidence: 0.9\nCitations: 1", "logprobs": steps}
        if asks_for_answer(body)
        else responder(body)
    )
    fair = {"A": 0.6 / 0.8, "B": 0.3 / 0.1, "C": 0.1 / 0.1}
    expected = fair["B"] / sum(fair.values())
    try:
        for mode in ("hybrid", "offline"):
            result = run({"question": QUESTION, "options": VERDICTS}, evidence_mode=mode)
            assert result["option"] == "B" and result["confidence"] == round(expected, 3), mode
            assert result["confidence_basis"]["calibrated"] and [c["pmid"] for c in result["citations"]] == ["10354335"]
        asked = "Does general anaesthesia for day surgery raise postoperative nausea in children?"
        alone = run({"question": asked, "options": VERDICTS}, evidence_mode="offline")
        assert alone["option"] == "A" and not alone["confidence_basis"]["calibrated"], "no paper read: no map"
    finally:
        confidence_maps.map_for.cache_clear()
