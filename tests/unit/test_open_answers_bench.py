"""benchmarks.open_answers: stored open answers judged again, and that judgement written back once."""

from __future__ import annotations

import json

import numpy as np

from benchmarks.open_answers import options_of, rewrite, versus

ITEMS = {
    "q1": {"options": {"A": "Thiamine", "B": "Folate"}, "answer": "A"},
    "q2": {"options": {"A": "Hyperkalemia", "B": "Hyponatremia"}, "answer": "A"},
}


def tied(texts):  # every text the same vector: no option is nearer than another
    return np.ones((len(texts), 2)) / np.sqrt(2)


def test_rewrite_stores_todays_judgement_and_keeps_the_runs_own_once(tmp_path):
    rows = [
        {"id": "q1", "answer": "Thiamine deficiency.", "predicted": "B", "correct": False},
        {"id": "q2", "answer": "An electrolyte problem.", "predicted": "A", "correct": True},
    ]
    letters = options_of(rows, ITEMS, tied)
    assert letters == {"q1": "A", "q2": None}, "named: its option; talking around it: none"
    path = tmp_path / "results.jsonl"
    rewrite(path, rows, letters, ITEMS)
    rewrite(path, [json.loads(x) for x in path.read_text().splitlines()], letters, ITEMS)  # a second time
    stored = [json.loads(x) for x in path.read_text().splitlines()]
    assert [(r["predicted"], r["correct"]) for r in stored] == [("A", True), (None, False)]
    assert [r["judged_at_run"] for r in stored] == [
        {"predicted": "B", "correct": False},
        {"predicted": "A", "correct": True},
    ], "the run's own judgement, not the first rewrite's"


def test_versus_counts_lost_and_gained_on_common_questions():
    first = {"a": True, "b": True, "c": False, "d": True}
    second = {"a": True, "b": False, "c": True}
    out = versus(first, second)
    assert (out["n"], out["lost"], out["gained"]) == (3, 1, 1)
