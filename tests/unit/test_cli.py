"""The amg CLI end to end: ask --json contract, --graph picture, chat with history; scripted LLM, real graph."""

from __future__ import annotations

from amg.cli.answer_format import json_result


def test_ask_json_lists_what_the_question_taught_the_graph():
    learned = {
        "source": "Diarrhea",
        "type": "adverse_effect_of",
        "target": "Metformin",
        "confidence": 0.73,
        "evidence_ids": ["textbook:endo::0"],
        "rationale": "kept out of the contract",
    }
    out = json_result({"answer": "Metformin", "new_relations": [learned]})
    assert out["learned"] == [
        {
            "source": "Diarrhea",
            "relation": "adverse_effect_of",
            "target": "Metformin",
            "confidence": 0.73,
            "evidence_ids": ["textbook:endo::0"],
            "pmids": [],
        }
    ]
