"""Evaluation harness: readers, metrics on hand-computed examples, every answering method on the scripted LLM,
resume."""

from __future__ import annotations

from pathlib import Path

import pytest

from amg.cli import bench as cli_bench
from amg.cli.main import build_parser
from amg.evaluation.citations import literature_figures
from amg.evaluation.datasets import load, shuffled
from amg.evaluation.metrics import accuracy, ece, macro_f1

BENCH = Path(__file__).parents[1] / "data" / "bench"


def test_readers_for_every_format():
    ours = load(BENCH / "ours.jsonl")
    assert [i["id"] for i in ours.items] == ["q1", "q2", "q4", "q5", "q6"]
    assert ours.skipped == {"malformed": 1, "unknown_answer": 1, "duplicate_id": 1}
    medqa = load(BENCH / "medqa.jsonl").items[0]
    assert medqa["answer"] == "A" and len(medqa["options"]) == 5
    medmcqa = load(BENCH / "medmcqa.jsonl").items
    assert [(i["answer"], i["subject"]) for i in medmcqa] == [("A", "Pharmacology"), ("C", "Biochemistry")]
    pubmedqa = load(BENCH / "pubmedqa.json").items
    assert [(i["id"], i["answer"]) for i in pubmedqa] == [("12345", "A"), ("12346", "B")]
    assert "Context: Metformin lowered" in pubmedqa[0]["question"]


def test_shuffle_moves_the_answer_with_its_text():
    item = load(BENCH / "ours.jsonl").items[0]
    moved = shuffled(item, seed=1)
    assert moved["options"][moved["answer"]] == "Metformin"
    assert sorted(moved["options"].values()) == sorted(item["options"].values())
    assert shuffled(item, seed=1) == moved


def test_metrics_on_hand_computed_examples():
    gold, pred = ["A", "A", "B", "B"], ["A", "B", "B", None]
    assert accuracy(gold, pred) == 0.5
    # A: tp1 fp0 fn1 -> 2/3 ; B: tp1 fp1 fn1 -> 1/2 ; macro = 7/12
    assert macro_f1(gold, pred) == pytest.approx(7 / 12)
    # bins: 0.9 x2 (1 right) -> |0.5-0.9|=0.4 ; 0.3 x2 (1 right) -> |0.5-0.3|=0.2 ; ECE = 0.5*0.4 + 0.5*0.2
    assert ece([0.9, 0.9, 0.3, 0.3], [True, False, True, False]) == pytest.approx(0.3)
    assert ece([1.0, 0.0], [True, False]) == pytest.approx(0.0)


def test_citation_figures_on_hand_made_results():
    rows = [
        {"gold_pmids": ["1"], "fetched_pmids": ["1", "2"], "cited_pmids": ["1", "2"]},  # precision 1/2
        {"gold_pmids": ["3"], "fetched_pmids": ["3"], "cited_pmids": ["3"]},  # precision 1
        {"gold_pmids": ["4"], "fetched_pmids": ["5"], "cited_pmids": []},  # cites nothing: not in precision
        {"gold_pmids": ["6"], "fetched_pmids": [], "cited_pmids": ["7"]},  # precision 0
        {"fetched_pmids": ["9"], "cited_pmids": ["9"]},
    ]  # no gold: not judged
    figures = literature_figures(rows)
    assert figures == {
        "n": 4,
        "gold_recall": 0.5,
        "citation_hit": 0.5,
        "citation_precision": pytest.approx(0.5),
        "citing_share": 0.75,
    }
    assert literature_figures([{"id": "q1"}]) is None


def test_the_always_the_commonest_baseline_and_the_largest_share():
    rows = [
        {"latency_s": 2.0, "answer_s": 1.0, "learn_s": 1.0, "learned": 2, "timings_ms": {"learn": 900.0}},
        {"latency_s": 3.0, "answer_s": 2.99, "learn_s": 0.01},
    ]
    figures = cli_bench.answer_figures(rows, ["A", "B", "A", "C"][:2] * 1, ["B", "B"])
    assert figures["baseline"]["option"] == "A", "a tie goes to the first letter"
    assert figures["largest_option_share"] == 1.0
    gold = ["A", "A", "B", "C"]
    # always A: accuracy 0.5; F1: A 2*2/(2*2+2+0) = 2/3, B 0, C 0 -> 2/9
    assert cli_bench.answer_figures(rows * 2, gold, gold)["baseline"] == {
        "option": "A",
        "accuracy": 0.5,
        "macro_f1": pytest.approx(2 / 9),
    }
    assert figures["learned_per_question"] == 1 and figures["learn_p50_s"] == 1.0


def test_bench_takes_the_answering_method_and_the_evidence_mode_like_every_command():
    args = build_parser().parse_args(["bench", "set.jsonl", "--method", "cot", "--mode", "offline"])
    assert (args.method, args.evidence_mode) == ("cot", "offline")
    assert build_parser().parse_args(["bench", "set.jsonl"]).method == "kg"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bench", "set.jsonl", "--kg-mode", "offline"])
