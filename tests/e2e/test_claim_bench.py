"""`amg bench` on a claims file in SciFact's format with a scripted model: kg hybrid, then kg offline on what it
learned, rag and cot; predictions.jsonl in SciFact's submission format and the official figures in summary.json."""

from __future__ import annotations

import json

import pytest

from amg.cli import bench as cli_bench
from amg.graphs.context import Context
from amg.graphs.resources import resources_for
from amg.testing.claim_replies import asks_for_claim_verdict
from tests.e2e.bench_args import bench_args
from tests.e2e.test_claim_check import CLAIM, check, responder  # noqa: F401 (the fixture)

CLAIMS = [
    {
        "id": 1,
        "claim": CLAIM,
        "evidence": {
            "1001": [{"sentences": [2], "label": "SUPPORT"}],
            "1002": [{"sentences": [3], "label": "CONTRADICT"}],
        },
        "cited_doc_ids": [1001, 1002],
    },
    {"id": 3, "claim": "Quantum tunnelling speeds up photosynthesis in algae.", "evidence": {}, "cited_doc_ids": [5]},
]


def baseline_replies(body: dict) -> dict:
    asked = asks_for_claim_verdict(body)
    if asked == "rag":
        return {"content": "Evidence: 1:2\nVerdict: supported"}
    if asked == "cot":
        return {"content": "It is debated.\nVerdict: not enough evidence"}
    return responder(body)


@pytest.fixture
def bench(check, tmp_path):  # noqa: F811 (the imported fixture)
    run, server = check
    server.responder = baseline_replies
    run({"question": "warm up"}, evidence_mode="offline", learn="off")  # installs the resources the bench finds
    dataset = tmp_path / "claims.jsonl"
    dataset.write_text("".join(json.dumps(c) + "\n" for c in CLAIMS))

    def bench_with(method: str, mode: str = "hybrid") -> dict:
        args = bench_args(dataset, method, tmp_path / "out", split="all")
        ctx = Context(data_dir=str(tmp_path), sources="pubmed", evidence_mode=mode)
        cli_bench._bench(args, ctx, resources_for(ctx))
        label = f"kg-{mode}" if method == "kg" else method
        folder = tmp_path / "out" / label
        predictions = [json.loads(x) for x in (folder / "predictions.jsonl").read_text().splitlines()]
        return {"summary": json.loads((folder / "summary.json").read_text()), "predictions": predictions}

    return bench_with


def test_kg_hybrid_then_offline_write_scifact_predictions_and_figures(bench):
    hybrid = bench("kg", "hybrid")
    assert hybrid["predictions"] == [
        {
            "id": 1,
            "evidence": {
                # the finding of each, not its background: the likeliest to settle the claim (settling.py)
                "1001": {"sentences": [2], "label": "SUPPORT"},
                "1002": {"sentences": [3], "label": "CONTRADICT"},
            },
        },
        {"id": 3, "evidence": {}},
    ]
    summary = hybrid["summary"]  # gold rationales: 1001 [2], 1002 [3]; both sentences quoted are gold
    assert summary["abstract_label_only_f1"]["f1"] == 1.0 and summary["abstract_label_rationale_f1"]["f1"] == 1.0
    assert summary["sentence_selection_f1"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    assert summary["retrieval_recall_at_3"] == 1.0 and summary["verdict_accuracy"] == 1.0
    assert summary["learned_per_claim"] > 0 and summary["latency_p50_s"] > 0
    offline = bench("kg", "offline")
    assert offline["predictions"] == hybrid["predictions"], "the graph kept what the hybrid pass read"
    assert offline["summary"]["verdict_accuracy"] == 1.0


def test_rag_and_cot_baselines_on_the_same_claims(bench):
    rag = bench("rag")
    assert rag["predictions"][0] == {"id": 1, "evidence": {"1001": {"sentences": [2], "label": "SUPPORT"}}}
    assert rag["summary"]["abstract_label_only_f1"]["precision"] == 1.0
    assert rag["summary"]["abstract_label_only_f1"]["recall"] == 0.5
    cot = bench("cot")
    assert cot["predictions"] == [{"id": 1, "evidence": {}}, {"id": 3, "evidence": {}}]
    assert cot["summary"]["retrieval_recall_at_3"] is None
    assert cot["summary"]["predicted_verdicts"] == {"not enough evidence": 2}
    assert cot["summary"]["verdict_accuracy"] == 0.5
