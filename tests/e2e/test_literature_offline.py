"""The literature loop's offline pass: a research question asked again without the literature reads what the graph
kept (the paper at length and alone, as hybrid first read it, with the map fitted on that reading; or the findings
that state the question), on the same two-abstract local index and scripted model as test_literature_loop."""

from __future__ import annotations

import pytest

from amg.testing.scripted_llm import asks_for_answer, prompt_text, requested_tool
from tests.e2e.test_literature_loop import QUESTION, VERDICTS, literature_loop, responder


@pytest.fixture
def loop(store, scripted_server, tmp_path, monkeypatch):
    yield from literature_loop(store, scripted_server, tmp_path, monkeypatch)


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


def test_the_offline_pass_reads_a_finding_that_states_the_question_in_other_words(loop, store):
    """The finding's ends are not the question's entities (the scripted parser names medical students and day
    surgery); its ends and sentence state most of the question's words, so it is read; the first question's are not."""
    from amg.tools.kg.records import EvidenceRecord, RelationRecord

    run, server = loop
    paper = EvidenceRecord(id="pmid:10759659", kind="pubmed", title="Cystoscopy by nurses", pmid="10759659")
    sentence = "Trained nurse practitioners perform cystoscopy as accurately as consultant urologists."
    finding = RelationRecord(
        "urology nurse practitioner",
        "consultant urologist",
        type="improves",
        confidence=0.73,
        evidence_ids=[paper.id],
        score_raw=8,
        description=sentence,
        origin="pubmed",
        model="m",
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
                "medical students",
                "patient satisfaction audit",
                type="worsens",
                confidence=0.73,
                evidence_ids=[other.id],
                score_raw=8,
                description=said,
                origin="pubmed",
                model="m",
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
