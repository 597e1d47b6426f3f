"""Open answers' confidence: the model's P(True) and the support of what it cites, mapped per model; the
open-answer judge of `amg bench --open`. Scripted model, real graph."""

from __future__ import annotations

import math

import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver

from amg.agents.answer_synthesizer.agreement import SAMPLE_TOKENS
from amg.graphs.context import Context
from amg.graphs.qa_graph import builder
from amg.graphs.reply import UNCALIBRATED
from amg.graphs.resources import Resources, install
from amg.testing.scripted_llm import (
    answer_lines,
    asks_for_answer,
    asks_for_sample,
    asks_to_verify,
    last_turn,
    prompt_text,
    verdict,
)
from amg.tools.kg.records import EntityRecord, EvidenceRecord, RelationRecord
from amg.tools.llm.confidence_maps import CalibrationMap
from amg.tools.question_kinds import confidence_kind, question_kind

PAPER = EvidenceRecord(
    id="pmid:31000001",
    kind="pubmed",
    pmid="31000001",
    title="Metformin in type 2 diabetes.",
    snippet="Metformin is the first-line drug for type 2 diabetes mellitus.",
)
CREATINE = EvidenceRecord(id="vocab:chebi:CHEBI:16919", kind="vocabulary", title="CHEBI:16919 creatine (ChEBI)")
ANSWER = "Metformin is used for treating type 2 diabetes mellitus."


def numbered(body: dict, title: str) -> list[int]:
    import re

    return [
        int(n)
        for n, line in re.findall(r"^\[(\d+)\] \([^)]*\) (.*)$", prompt_text(body), re.M)
        if line.startswith(title)
    ]


@pytest.fixture
def ask(store, scripted_server, tmp_path):
    store.upsert(
        entities=[EntityRecord("Metformin", "drug"), EntityRecord("Creatine", "drug")],
        evidence=[PAPER, CREATINE],
        relations=[
            RelationRecord(
                "Metformin", "Type 2 diabetes mellitus", type="treats", confidence=0.9, evidence_ids=[PAPER.id]
            ),
            RelationRecord("Creatine", "Guanidines", type="is_a", confidence=1.0, evidence_ids=[CREATINE.id]),
        ],
    )
    state = {"p_yes": 0.95, "cite": "Metformin in", "samples": ["Type 2 diabetes."]}

    def respond(body: dict) -> dict:
        if asks_for_sample(body):  # a sampled short answer, in turn
            turn = sum(asks_for_sample(b) for b in server.requests) - 1
            return {"content": state["samples"][turn % len(state["samples"])]}
        if asks_to_verify(body):
            return verdict(state["p_yes"])
        if asks_for_answer(body):
            return answer_lines(answer=ANSWER, confidence=0.9, citations=numbered(body, state["cite"]))
        return {"content": "Metformin."}

    server = scripted_server(respond)
    llm = ChatOpenAI(base_url=server.base_url, api_key="t", model="scripted", temperature=0)
    graph = builder.compile(checkpointer=InMemorySaver())

    def run(question: str, open_map: CalibrationMap | None = None, thread: str = "t", samples: int = 3) -> dict:
        ctx = Context(
            answer_samples=samples,
            data_dir=str(tmp_path),
            evidence_mode="offline",
            query_parser="vocabulary",
            path_ranking="confidence",
            min_path_relevance=0.0,
        )
        res = Resources(ctx, store=store, llm=llm)
        res.calibration = lambda method="kg", kind="exam", mode=None: open_map if kind == "open" else None
        install(res)
        return graph.invoke(
            {"messages": [HumanMessage(question)]}, {"configurable": {"thread_id": thread}}, context=ctx
        )

    return run, state, server


def test_an_open_answer_the_graph_says_nothing_on_rests_on_the_model_with_a_low_uncalibrated_confidence(ask):
    """Creatine's only fact is its class, which does not answer what it is used for: the draft stands, uncited."""
    run, state, _ = ask
    result = run("What is creatine used for?")
    basis = result["confidence_basis"]
    assert result["answer"] == ANSWER and result["citations"] == [] and basis["source"] == "verification probability"
    assert basis["rests_on"] and basis["facts_on_the_point"] == 0 and not basis["agreed"]
    assert basis["p_true"] == pytest.approx(0.95, abs=1e-3) and basis["calibrated"] is False
    assert result["confidence"] == pytest.approx(0.475, abs=1e-3), "P(True) x (1/2 + 1/2 x support 0)"
    assert UNCALIBRATED.strip() in result["messages"][-1].content


def test_the_models_doubt_lowers_a_supported_answers_confidence(ask):
    run, state, _ = ask
    sure = run("What is metformin used for?", thread="a")["confidence"]
    state["p_yes"] = 0.2
    doubtful = run("What is metformin used for?", thread="b")
    assert doubtful["citations"] and doubtful["confidence"] < sure
    assert doubtful["confidence"] == pytest.approx(
        0.2 * (0.5 + 0.5 * doubtful["confidence_basis"]["support"]), abs=1e-3
    )


def test_the_open_map_is_applied_and_marked_calibrated(ask):
    run, _, _ = ask
    cmap = CalibrationMap(a=1.0, b=2.0, c=-1.0)
    result = run("What is metformin used for?", open_map=cmap)
    basis = result["confidence_basis"]
    assert basis["calibrated"] is True and result["confidence"] == pytest.approx(
        cmap(basis["p_true"], basis["support"]), abs=1e-3
    )
    assert UNCALIBRATED.strip() not in result["messages"][-1].content


def test_an_open_question_asking_whether_a_claim_holds_is_not_calibrated_by_the_open_map(ask):
    """Its yes / no answer leans differently: the research-open map or none, never the exam-like open one."""
    run, _, _ = ask
    result = run("Is metformin used for type 2 diabetes mellitus?", open_map=CalibrationMap(a=1.0, b=2.0, c=-1.0))
    assert result["confidence_basis"]["calibrated"] is False
    for question, options, kind in (
        ("Is metformin used for it?", {}, "research-open"),
        ("What is metformin used for?", {}, "open"),
        ("Is it?", {"A": "yes", "B": "no", "C": "maybe"}, "research"),
        ("Which drug?", {"A": "Metformin", "B": "Insulin"}, "exam"),
    ):
        assert confidence_kind(question_kind(question, options), options) == kind, question


def test_the_answer_check_stays_out_of_the_conversation(ask):
    run, _, server = ask
    result = run("What is metformin used for?")
    assert sum(asks_to_verify(b) for b in server.requests) == 1
    assert not any("Is the answer you just gave correct" in t["content"] for t in result["dialogue"])


def test_a_map_on_the_answers_likelihood_reads_it(ask):
    run, _, _ = ask
    cmap = CalibrationMap(a=1.0, b=0.0, c=0.0, about={"feature": "p_answer"})
    result = run("What is metformin used for?", open_map=cmap)
    assert "p_answer" not in result["confidence_basis"], "the scripted endpoint sent no token probabilities"
    assert result["confidence_basis"]["source"] == "stated" and result["confidence_basis"]["calibrated"] is False


def test_short_answers_sampled_beside_the_draft_raise_the_confidence_as_they_agree_with_it(ask):
    """Three short answers are sampled to the bare question (temperature 0.8, each its own seed, kept out of the
    conversation); under a map weighing their agreement, samples that say the answer again print a higher
    confidence than samples that say something else, and with sampling off the map is not read."""
    run, state, server = ask
    cmap = CalibrationMap(a=1.0, b=0.0, c=-1.0, about={"feature": "p_true"}, weights={"agreement": 4.0})
    state["samples"] = ["Type 2 diabetes mellitus."] * 3 + ["Weight loss.", "Polycystic ovary syndrome.", "Acne."]
    agreeing = run("What is metformin used for?", open_map=cmap, thread="a")
    sampled = [b for b in server.requests if asks_for_sample(b)]
    assert len(sampled) == 3 and {b["temperature"] for b in sampled} == {0.8} and len({b["seed"] for b in sampled}) == 3
    assert all(
        (b.get("max_tokens") or b.get("max_completion_tokens")) == SAMPLE_TOKENS
        and "What is metformin used for?" in last_turn(b)
        for b in sampled
    )
    assert not any(asks_for_sample({"messages": [turn]}) for turn in agreeing["dialogue"]), "kept out of the chat"
    assert agreeing["confidence_basis"]["samples"] == ["Type 2 diabetes mellitus."] * 3, "shown with the agreement"
    check = next(i for i, b in enumerate(server.requests) if asks_to_verify(b))
    assert asks_for_answer(server.requests[check - 1]), "the answer check follows the draft: its cache is reused"
    differing = run("What is metformin used for?", open_map=cmap, thread="b")
    high, low = agreeing["confidence_basis"]["agreement"], differing["confidence_basis"]["agreement"]
    assert high > 0.5 > low, "'type 2 diabetes mellitus' is the answer said again; weight loss or acne are not"
    assert agreeing["confidence"] > differing["confidence"] and agreeing["confidence_basis"]["calibrated"] is True
    p = differing["confidence_basis"]["p_true"]
    assert differing["confidence"] == pytest.approx(
        1 / (1 + math.exp(-(math.log(p / (1 - p)) - 1.0 + 4.0 * low))), abs=1e-3
    )
    asked = len(server.requests)
    off = run("What is metformin used for?", open_map=cmap, thread="c", samples=0)
    assert not any(asks_for_sample(b) for b in server.requests[asked:])
    assert "agreement" not in off["confidence_basis"] and off["confidence_basis"]["calibrated"] is False
    assert "samples" not in off["confidence_basis"]
