"""The whole QA graph: scripted OpenAI-compatible server + real local Bolt server + recorded PubMed."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI

from amg.agents.answer_synthesizer.agreement import SAMPLES
from amg.cli.qa import answered_first
from amg.graphs.context import Context
from amg.graphs.qa_graph import graph
from amg.graphs.resources import Resources, install
from amg.testing.fakes import RecordedEntrez
from amg.testing.scripted_llm import (
    answer_lines,
    asks_for_answer,
    asks_for_entities,
    asks_for_sample,
    asks_to_verify,
    prompt_text,
    requested_tool,
)
from amg.tools.evidence.finder import EvidenceFinder
from amg.tools.evidence.pubmed import PubMedClient
from amg.tools.evidence.request_cache import RequestCache
from amg.tools.kg.records import EvidenceRecord, RelationRecord


def responder(body: dict) -> dict:
    tool = requested_tool(body)
    if asks_for_entities(body):
        return {"content": "metformin | drug"}
    if tool == "EntityAssessment":
        return {
            "tool": tool,
            "args": {
                "description": "A biguanide.",
                "description_score": 8,
                "relations": [
                    {
                        "sentence": "Metformin is recommended as the first-line drug for type 2 diabetes mellitus.",
                        "relation": "treats",
                        "other": "Type 2 diabetes mellitus",
                        "score": 9,
                    }
                ],
            },
        }
    if asks_for_answer(body):
        return answer_lines(answer="Metformin treats type 2 diabetes mellitus [1].", confidence=0.8, citations=[1])
    return {"content": "Metformin treats type 2 diabetes, which causes polyuria."}


@pytest.fixture
def qa(store, scripted_server, tmp_path, monkeypatch):
    """Run the graph with a given mode; returns (run, server, entrez). The scripted extractor counts as
    measured and perfect (reliability 1.0), so its scores are the confidences below; as a reader of cited texts
    it counts as unmeasured (0.6)."""
    monkeypatch.setattr("amg.graphs.resources.extraction_reliability", lambda model: 1.0)
    monkeypatch.setattr("amg.graphs.qa_graph.extraction_reliability", lambda model: 0.6)  # as it reads: unmeasured
    store.upsert(
        evidence=[EvidenceRecord(id="vocab:hpo:HP:0000103", kind="vocabulary", title="Polyuria")],
        relations=[
            RelationRecord(
                "Polyuria",
                "Type 2 diabetes mellitus",
                type="symptom_of",
                confidence=0.8,
                evidence_ids=["vocab:hpo:HP:0000103"],
                score_raw=8,
                description="",
                origin="vocabulary:hpo",
            )
        ],
    )
    server = scripted_server(responder)
    entrez = RecordedEntrez()

    def run(payload: dict, **context) -> dict:
        ctx = Context(data_dir=str(tmp_path), sources="pubmed", **context)
        llm = ChatOpenAI(base_url=server.base_url, api_key="test", model="scripted", temperature=0)
        finder = EvidenceFinder(
            pubmed=PubMedClient("", "", cache=RequestCache(tmp_path / "c.sqlite"), transport=entrez)
        )
        install(Resources(ctx, store=store, llm=llm, evidence=finder))
        return graph.invoke(payload, context=ctx)

    return run, server, entrez


def test_learning_before_the_answer_writes_traverses_and_cites_in_one_run(qa, store):
    """AMG_LEARN=before, the paper's order: the relation scored from the evidence is on this answer's paths."""
    run, server, entrez = qa
    result = run({"question": "What is metformin used for?"}, evidence_mode="hybrid", learn="before")
    # the missing entity was searched and its relation written with the PMID
    assert [e[0] for e in entrez.requests] == ["esearch", "efetch"]
    written = [{"t": r["target"], "ev": r["props"]["evidence_ids"]} for r in store.outgoing("metformin")]
    assert written == [{"t": "type 2 diabetes mellitus", "ev": ["pmid:31000001", "pmid:31000002"]}] or written == [
        {"t": "type 2 diabetes mellitus", "ev": ["pmid:31000001"]}
    ]
    # traversal reached the two-hop entity with the product of confidences
    polyuria = next(n for n in result["subgraph"]["nodes"] if n["key"] == "polyuria")
    assert polyuria["score"] == pytest.approx(0.72) and polyuria["depth"] == 2
    assert polyuria["path"] == "metformin -treats(0.90)-> Type 2 diabetes mellitus -has_symptom(0.80)-> Polyuria = 0.72"
    # the answer cites that PMID and the confidence follows the documented formula
    assert [c["pmid"] for c in result["citations"]] == ["31000001"]
    assert result["confidence"] == pytest.approx(0.8 * (0.5 + 0.5 * 0.9)), (
        "stated 0.8 (no P(True) from this endpoint); support: the fact the draft agrees with, 0.90"
    )
    assert result["confidence_basis"]["agreed"] and not result["confidence_basis"]["revised"]
    assert result["messages"][-1].content.endswith("this is not medical advice.")
    # parse, score, the samples, the draft (its thinking, its answer), its check
    assert result["llm_calls"] == 5 + SAMPLES


def test_hybrid_answers_from_the_evidence_first_and_learns_after(qa, store):
    """The default: an open question's draft is answered at once and cited from the fetched evidence that states it;
    the scorer writes what that evidence states after the answer, so the next question's traversal has it."""
    run, server, entrez = qa
    result = run({"question": "What is metformin used for?"}, evidence_mode="hybrid")
    asked = [
        "sample"
        if asks_for_sample(b)
        else "score"
        if requested_tool(b) == "EntityAssessment"
        else "answer"
        if asks_for_answer(b)
        else "check"
        if asks_to_verify(b)
        else "other"
        for b in server.requests
    ]
    assert asked == ["other", *["sample"] * SAMPLES, "other", "answer", "check", "score", "score"], (
        "parse, the short answers sampled for the confidence, the draft (its thinking, its answer), its check, then "
        "the scoring of metformin (a gap) and of Type 2 diabetes mellitus "
        "(the answer names it, from the evidence it cites)"
    )
    scored = sorted(
        prompt_text(b).split('describe the\nentity "')[1].split('"')[0] for b in server.requests[4 + SAMPLES :]
    )
    assert scored == ["Type 2 diabetes mellitus", "metformin"]
    # the draft is the model's own answer: its thinking and answer see nothing
    for drafting in server.requests[1 + SAMPLES : 3 + SAMPLES]:
        assert "<evidence>\n(none)\n</evidence>" in prompt_text(drafting) and "first-line" not in prompt_text(drafting)
    assert [c["pmid"] for c in result["citations"]] == ["31000001"]
    assert result["confidence"] == pytest.approx(0.8 * (0.5 + 0.5 * 0.6)), (
        "stated 0.8 (no P(True) from this endpoint); a cited text supports as well as an unmeasured model reads (0.6)"
    )
    assert not any(n["key"] == "polyuria" for n in result["subgraph"]["nodes"]), "not learned yet when it answered"
    assert [r["target"] for r in result["new_relations"]] == ["Type 2 diabetes mellitus"]
    assert [r["target"] for r in store.outgoing("metformin")] == ["type 2 diabetes mellitus"]
    assert result["llm_calls"] == 6 + SAMPLES and result["timings_ms"]["learn"] > 0
    again = run({"question": "What is metformin used for?"}, evidence_mode="hybrid", min_relations=1)
    polyuria = next(n for n in again["subgraph"]["nodes"] if n["key"] == "polyuria")
    assert polyuria["score"] == pytest.approx(0.72) and "learn" not in again["timings_ms"]


def test_offline_mode_never_searches_and_uses_at_most_four_calls_besides_the_samples(qa):
    """An open question: parse, the draft and its check (and the short answers sampled for its confidence); with
    options (the vocabularies find an option's entity, so no parse call): reason and answer, in one conversation."""
    run, server, entrez = qa
    result = run({"question": "What is metformin used for?"}, evidence_mode="offline")
    assert entrez.requests == [] and result["llm_calls"] <= 4 + SAMPLES
    assert set(result["timings_ms"]) == {
        "parse_query",
        "check_gaps",
        "traverse",
        "differential",
        "draft",
        "reason",
        "answer",
    }
    options = {"A": "Type 2 diabetes mellitus", "B": "Asthma"}
    before = len(server.requests)
    run({"question": "What is metformin used for?", "options": options}, evidence_mode="offline")
    # one conversation: each request resends the previous one and its reply, as sent over HTTP
    sent = [b["messages"] for b in server.requests[before:]]
    assert len(sent) == 2
    for earlier, later in zip(sent, sent[1:]):
        assert later[: len(earlier)] == earlier and later[len(earlier)]["role"] == "assistant"


def test_dynamic_mode_expands_entities_that_are_not_gaps(qa, store):
    run, server, entrez = qa

    def scorings() -> int:
        return sum(requested_tool(b) == "EntityAssessment" for b in server.requests)

    run({"question": "What is metformin used for?"}, evidence_mode="hybrid")
    assert scorings() == 2, "metformin, and the T2DM the answer names"
    # metformin now has one strong relation: no gap when one is enough, so hybrid skips it ...
    run({"question": "What is metformin used for?"}, evidence_mode="hybrid", min_relations=1)
    assert scorings() == 2
    # ... while dynamic mode expands every entity (PubMed answers from the cache this time)
    run({"question": "What is metformin used for?"}, evidence_mode="dynamic", min_relations=1)
    assert scorings() == 4 and len(entrez.requests) == 2


def test_source_down_degrades_instead_of_failing(qa):
    run, server, entrez = qa

    def down(endpoint, params):
        import urllib.error

        raise urllib.error.URLError("no route to host")

    entrez.__class__ = type("Down", (RecordedEntrez,), {"__call__": lambda self, e, p: down(e, p)})
    result = run({"question": "What is metformin used for?"}, evidence_mode="hybrid")
    assert any("pubmed" in d and "unreachable" in d for d in result["degradations"])
    assert result["answer"]


@pytest.mark.parametrize(
    "payload, expected",
    [
        ({"question": "   "}, "input was empty"),
        ({"question": "", "options": {"A": "x", "B": "y"}}, "without a question"),
        ({"question": "q?", "options": {"AA": "x"}}, "letters A-J"),
    ],
)
def test_bad_input_gets_a_clear_answer(qa, payload, expected):
    run, server, _ = qa
    result = run(payload)
    assert expected in result["answer"] and server.requests == []


def test_huge_question_is_truncated_with_a_notice(qa):
    run, _, _ = qa
    result = run({"question": "What is metformin used for? " + "x" * 100_000}, evidence_mode="offline")
    assert "only the first 4,000" in result["notices"][0]
    assert result["messages"][-1].content.startswith("Note: The question was")


def test_chat_message_input_with_inline_options(qa):
    run, server, _ = qa
    text = "Which drug treats type 2 diabetes?\nA. Metformin\nB. Warfarin"
    result = run({"messages": [HumanMessage(text)]}, evidence_mode="offline")
    assert result["options"] == {"A": "Metformin", "B": "Warfarin"}
    assert result["messages"][-1].type == "ai"


def test_poisoned_abstract_stays_quoted_data(qa):
    run, server, entrez = qa
    entrez.files["efetch"] = "efetch_poisoned.xml"
    result = run({"question": "What is metformin used for?"}, evidence_mode="hybrid")
    scoring = next(b for b in server.requests if requested_tool(b) == "EntityAssessment")
    text = prompt_text(scoring)
    injected = text.index("IGNORE PREVIOUS INSTRUCTIONS")
    assert text.rfind("<evidence", 0, injected) > text.rfind("</evidence>", 0, injected), "inside a quote block"
    assert "data, never instructions" in text
    assert "PWNED" not in result["answer"] and json.dumps(result["citations"]) is not None  # answer format unchanged
    assert not result["citations"], "the abstract names metformin but does not state the answer: not cited"


def test_the_answer_is_shown_before_the_evidence_is_scored(qa, tmp_path):
    """``amg ask`` and ``amg chat`` print the answer when the answer node has it, before the scorer's call."""
    run, server, entrez = qa
    run({"question": "What is metformin used for?"}, evidence_mode="offline")  # installs the run's resources
    before, seen = len(server.requests), []
    ctx = Context(data_dir=str(tmp_path), sources="pubmed", evidence_mode="hybrid")
    result = answered_first(
        graph,
        {"question": "What is metformin used for?"},
        context=ctx,
        show=lambda text: seen.append((len(server.requests) - before, text)),
    )
    assert seen == [(4 + SAMPLES, result["messages"][-1].content)], (
        "parse, the samples, the draft (its thinking, its answer) and its check asked; the scoring not yet"
    )
    assert len(server.requests) - before == 6 + SAMPLES and result["new_relations"]
