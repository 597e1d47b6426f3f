"""The amg CLI end to end: ask --json contract, --graph picture, chat with history; scripted LLM, real graph."""

from __future__ import annotations

import io
import json

import pytest

from amg.agents.answer_synthesizer.agreement import SAMPLES
from amg.cli import main as cli
from amg.testing.scripted_llm import (
    answer_lines,
    asks_for_answer,
    asks_for_entities,
    prompt_text,
)
from amg.tools.kg.records import EvidenceRecord, RelationRecord


def responder(body):
    if asks_for_entities(body):
        return {"content": "metformin | drug"}
    if asks_for_answer(body):
        follow_up = "side effect" in prompt_text(body)
        return answer_lines(
            answer="Diarrhea." if follow_up else "Metformin treats type 2 diabetes.", confidence=0.6, citations=[1]
        )
    return {"content": "reasoning"}


@pytest.fixture
def cli_env(store, scripted_server, tmp_path, monkeypatch):
    store.upsert(
        evidence=[EvidenceRecord(id="pmid:31000001", kind="pubmed", title="Metformin first line", pmid="31000001")],
        relations=[
            RelationRecord(
                "Metformin", "Type 2 diabetes mellitus", type="treats", confidence=0.9, evidence_ids=["pmid:31000001"]
            )
        ],
    )
    server = scripted_server(responder)
    # the CLI opens its own connection to the session's embedded server (shared through AMG_DATA_DIR)
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "t")
    monkeypatch.setenv("AMG_LLM_MODEL", "scripted")
    monkeypatch.setenv("AMG_MODE", "offline")
    return server


def test_ask_json_contract_and_picture(cli_env, capsys, tmp_path):
    picture = tmp_path / "answer.html"
    assert cli.main(["ask", "What is metformin used for?", "--json", "--graph", str(picture)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"answer", "option", "confidence", "citations", "entities", "paths", "reasoning", "trace"}
    assert out["citations"][0] == {
        "n": 1,
        "evidence_id": "pmid:31000001",
        "kind": "pubmed",
        "pmid": "31000001",
        "doi": None,
        "title": "Metformin first line",
        "year": None,
        "url": None,
        "quote": "Metformin treats Type 2 diabetes mellitus.",
    }, "the relation it backs"
    assert set(out["trace"]) == {"timings_ms", "llm_calls", "tokens", "degradations", "learning_faults"}
    assert out["trace"]["llm_calls"] == 3 + SAMPLES, (
        "the samples, the draft (its thinking, its answer) and its check: the vocabularies name metformin, so no parse"
    )
    assert "Metformin -treats(0.90)-> Type 2 diabetes mellitus = 0.90" in [p["path"] for p in out["paths"]]
    html = picture.read_text()
    assert "<svg" in html and "Metformin first line" in html and "<script" not in html


def test_human_output_ends_with_the_disclaimer(cli_env, capsys):
    assert cli.main(["ask", "What is metformin used for?"]) == 0
    assert capsys.readouterr().out.strip().endswith("this is not medical advice.")


def test_chat_keeps_history_for_follow_ups(cli_env, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("What is metformin used for?\nAnd its most common side effect?\n\n"))
    assert cli.main(["chat", "--thread", "t1"]) == 0
    out = capsys.readouterr().out
    assert "Metformin treats type 2 diabetes." in out and "Diarrhea." in out
    follow_up = [prompt_text(body) for body in cli_env.requests if "side effect" in prompt_text(body)]
    assert follow_up and all("metformin's most common side effect" in text for text in follow_up), "asked on its own"
    assert not any("Previous question" in text for text in follow_up)
