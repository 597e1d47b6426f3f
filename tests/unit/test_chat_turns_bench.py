"""benchmarks.chat_turns: consecutive questions paired, and a chat's answers compared with the same asked alone."""

from __future__ import annotations

import json

from benchmarks.chat_turns import compare, pairs


def test_each_question_after_the_first_is_asked_after_the_one_before(tmp_path):
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps({"id": f"q{i}", "question": f"Q{i}?"}) + "\n" for i in range(4)))
    assert [(a["id"], b["id"]) for a, b in pairs(path, 2)] == [("q0", "q1"), ("q1", "q2")]
    assert len(pairs(path, 10)) == 3


def test_lost_and_gained_count_only_questions_asked_both_ways():
    chat = [
        {"id": "q1", "answer": "Thiamine.", "correct": True},
        {"id": "q2", "answer": "Hyponatremia.", "correct": False},
        {"id": "q3", "answer": "Folate.", "correct": True},
        {"id": "q4", "answer": "Anything.", "correct": False},
    ]
    alone = {
        "q1": {"answer": "Thiamine.", "correct": True},
        "q2": {"answer": "Hyperkalemia.", "correct": True},
        "q3": {"answer": "Vitamin B9.", "correct": False},
    }
    assert compare(chat, alone) == {
        "n_alone": 3,
        "answer_changed": 2,
        "lost_to_the_chat": 1,
        "gained_in_the_chat": 1,
        "alone_accuracy": 0.667,
    }
