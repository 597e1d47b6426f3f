"""Evaluation harness: readers, metrics on hand-computed examples, every answering method on the scripted LLM,
resume."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from langchain_openai import ChatOpenAI

from amg.cli import bench as cli_bench
from amg.evaluation import METHODS
from amg.graphs.context import Context
from amg.graphs.resources import Resources, install, resources_for
from amg.testing.scripted_llm import (
    answer_lines,
    asks_for_answer,
    asks_for_entities,
    asks_to_verify,
    prompt_text,
    verdict,
)
from tests.e2e.bench_args import bench_args

BENCH = Path(__file__).parents[1] / "data" / "bench"


def answer_key(body: dict) -> dict:
    """Scripted model: knows answers by keyword, and says 'B' when unsure (a position bias)."""
    known = {"first-line for type 2": "B", "Isoniazid": "A", "ACE inhibitors": "A", "Rifampicin": "C"}
    if asks_for_answer(body):
        return answer_lines(option=next((v for k, v in known.items() if k in prompt_text(body)), "B"), confidence=0.9)
    if asks_for_entities(body):
        return {"content": ""}
    return {"content": "step by step"}


@pytest.fixture
def bench_env(store, scripted_server, tmp_path):
    server = scripted_server(answer_key)
    ctx = Context(data_dir=str(tmp_path / "data"), evidence_mode="offline")
    llm = ChatOpenAI(base_url=server.base_url, api_key="t", model="scripted")
    install(Resources(ctx, store=store, llm=llm))
    return ctx, tmp_path, server


def args_for(tmp_path, method, **extra):
    return bench_args(BENCH / "ours.jsonl", method, tmp_path / "out", limit=5, **extra)


@pytest.mark.parametrize("method", METHODS)
def test_five_questions_by_each_method(bench_env, method):
    ctx, tmp_path, _ = bench_env
    from amg.graphs.resources import resources_for

    cli_bench._bench(args_for(tmp_path, method), ctx, resources_for(ctx))
    method = "kg-offline" if method == "kg" else method  # kg is labelled by its evidence mode
    summary = json.loads((tmp_path / "out" / method / "summary.json").read_text())
    assert summary["n"] == 5 and summary["method"] == method
    assert summary["accuracy"] == pytest.approx(0.8)  # q6 (salbutamol) falls to the 'B' bias
    assert summary["predicted_letters"] == {"A": 2, "B": 2, "C": 1}
    assert summary["config"]["retrieval_uses"] == "question only"
    assert {
        "n",
        "accuracy",
        "macro_f1",
        "ece",
        "unparsed",
        "latency_p50_s",
        "llm_calls_per_question",
        "tokens_per_question",
        "method",
        "model",
    } <= set(summary)
    assert (tmp_path / "out" / method / "reliability.png").stat().st_size > 1000
    assert f"| {method} |" in (tmp_path / "out" / "report.md").read_text()


def test_open_answers_are_asked_without_options_and_judged_by_the_option_they_stand_for(bench_env, monkeypatch):
    ctx, tmp_path, server = bench_env
    said = {
        "first-line for type 2": "Metformin is first-line.",
        "Isoniazid": "Vitamin B6 prevents it.",
        "ACE inhibitors": "A dry cough.",
        "Rifampicin": "It turns urine blue.",
    }

    def respond(body: dict) -> dict:
        if asks_to_verify(body):
            return verdict(0.7)
        if asks_for_answer(body):
            assert "A. " not in prompt_text(body), "the options are never shown"
            return answer_lines(answer=next((v for k, v in said.items() if k in prompt_text(body)), "Unsure."))
        if asks_for_entities(body):  # an entity: answered; none (salbutamol's question): refused
            return {"content": "" if "Salbutamol" in prompt_text(body) else "isoniazid | drug"}
        return {"content": "step by step"}

    server.responder = respond
    monkeypatch.setattr(cli_bench, "_embed", lambda res: lambda texts: np.ones((len(texts), 2)) / np.sqrt(2))
    cli_bench._bench(args_for(tmp_path, "kg", open=True), ctx, resources_for(ctx))
    rows = [
        json.loads(line) for line in (tmp_path / "out" / "kg-offline-open" / "results.jsonl").read_text().splitlines()
    ]
    assert [(r["id"], r["predicted"], r["correct"]) for r in rows] == [
        ("q1", "B", True),
        ("q2", "A", True),
        ("q4", "A", True),
        ("q5", "A", False),
        ("q6", None, False),
    ], "named word for word; an answer tied between all options (q6's 'Unsure.') stands for none of them"
    assert rows[0]["answer"] == "Metformin is first-line." and rows[0]["confidence_basis"]["p_true"] == pytest.approx(
        0.7
    )
    cli_bench._bench(args_for(tmp_path, "closed-book", open=True), ctx, resources_for(ctx))
    bare = [
        json.loads(line) for line in (tmp_path / "out" / "closed-book-open" / "results.jsonl").read_text().splitlines()
    ]
    assert [r["answer"] for r in bare] == [r["answer"] for r in rows], "the bare model, asked the same, judged the same"
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| closed-book-open | kg-offline-open | 5 | 3 | 0 | 0 |" in report, (
        "the graph silent: nothing lost or gained"
    )


def test_resume_after_interruption_gives_the_same_report(bench_env):
    from amg.graphs.resources import resources_for

    ctx, tmp_path, server = bench_env
    cli_bench._bench(args_for(tmp_path, "closed-book"), ctx, resources_for(ctx))
    whole = json.loads((tmp_path / "out" / "closed-book" / "summary.json").read_text())
    results = tmp_path / "out" / "closed-book" / "results.jsonl"
    lines = results.read_text().splitlines()
    results.write_text("\n".join(lines[:2]) + "\n" + lines[2][:25])  # killed while writing the third line
    calls = len(server.requests)
    cli_bench._bench(args_for(tmp_path, "closed-book", resume=True), ctx, resources_for(ctx))
    resumed = json.loads((tmp_path / "out" / "closed-book" / "summary.json").read_text())
    assert len(server.requests) - calls == 3, "only the three missing questions were asked (the torn one again)"
    drop = ("latency_p50_s", "latency_p95_s", "answer_p50_s", "config", "node_latency_ms")
    assert {k: v for k, v in resumed.items() if k not in drop} == {k: v for k, v in whole.items() if k not in drop}


def test_a_failed_model_call_is_an_unanswered_question_not_a_lost_run(bench_env, monkeypatch):
    from amg.tools.llm.chat import ModelUnavailable

    ctx, tmp_path, _ = bench_env
    real = cli_bench._answer

    def flaky(method, item, **rest):
        if item["id"] == "q2":
            raise ModelUnavailable("model endpoint http://x/v1 did not answer within 60 s (AMG_LLM_TIMEOUT)")
        return real(method, item, **rest)

    monkeypatch.setattr(cli_bench, "_answer", flaky)
    assert cli_bench._bench(args_for(tmp_path, "closed-book"), ctx, resources_for(ctx)) == 0
    rows = {
        json.loads(line)["id"]: json.loads(line) for line in (tmp_path / "out" / "closed-book" / "results.jsonl").open()
    }
    assert len(rows) == 5 and rows["q2"]["predicted"] is None and "did not answer" in rows["q2"]["error"]
