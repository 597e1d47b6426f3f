"""The extraction benchmark: its labelled set, and its scoring against a scripted model with known replies."""

from __future__ import annotations

import json

from langchain_openai import ChatOpenAI

from amg.testing.scripted_llm import prompt_text, requested_tool
from amg.tools.llm import confidence_maps
from benchmarks import extraction

ITEMS = [
    {
        "id": "metformin",
        "entity": "Metformin",
        "entity_type": "drug",
        "passage": "Metformin is a biguanide used for type 2 diabetes mellitus. It does not cause hypoglycemia. "
        "Diarrhea is common; lactic acidosis is rare.",
        "relations": [
            {"source": "Metformin", "type": "treats", "target": "Type 2 diabetes mellitus", "correct": True},
            {"source": "Metformin", "type": "is_a", "target": "Biguanide", "correct": True},
            {"source": "Diarrhea", "type": "adverse_effect_of", "target": "Metformin", "correct": True},
            {"source": "Metformin", "type": "causes", "target": "Hypoglycemia", "correct": False},
        ],
    },
    {
        "id": "warfarin",
        "entity": "Warfarin",
        "entity_type": "drug",
        "passage": "Warfarin prevents stroke in atrial fibrillation. Aspirin increases its bleeding risk.",
        "relations": [
            {"source": "Warfarin", "type": "prevents", "target": "Stroke", "correct": True},
            {"source": "Warfarin", "type": "interacts_with", "target": "Aspirin", "correct": True},
            {"source": "Warfarin", "type": "treats", "target": "Atrial fibrillation", "correct": False},
        ],
    },
    {
        "id": "aspirin",
        "entity": "Aspirin",
        "entity_type": "drug",
        "passage": "Aspirin prevents myocardial infarction. Peptic ulcer is an adverse effect of aspirin.",
        "relations": [
            {"source": "Aspirin", "type": "prevents", "target": "Myocardial infarction", "correct": True},
            {"source": "Peptic ulcer", "type": "adverse_effect_of", "target": "Aspirin", "correct": True},
        ],
    },
]


def rel(relation, other, score, sentence):
    return {"sentence": sentence, "relation": relation, "other": other, "score": score}


USED, NOT_HYPO, DIARRHEA = (
    "Metformin is a biguanide used for type 2 diabetes mellitus.",
    "It does not cause hypoglycemia.",
    "Diarrhea is common; lactic acidosis is rare.",
)
PREVENTS, BLEEDING = "Warfarin prevents stroke in atrial fibrillation.", "Aspirin increases its bleeding risk."


REPLIES = {
    "Metformin": [
        rel("treats", "Type 2 diabetes mellitus", 9, USED),  # correct
        rel("is_a", "Biguanide", 8, USED),  # correct
        rel("has_adverse_effect", "Diarrhea", 3, DIARRHEA),  # read forwards, under the keep score: a positive missed
        rel("causes", "Hypoglycemia", 7, NOT_HYPO),  # incorrect
        rel("associated_with", "Lactic acidosis", 6, DIARRHEA),  # unlabelled
        rel("treats", "Obesity", 8, USED),  # the passage does not name obesity: refused
    ],
    "Warfarin": [
        rel("interacts_with", "Aspirin", 9, BLEEDING),  # labelled Warfarin-Aspirin; symmetric, either order: correct
        rel("prevents", "Stroke", 9, "Warfarin cures stroke."),  # a sentence the passage does not hold: refused
        rel("prevents", "Stroke", 8, PREVENTS),  # quoted this time: correct
        rel("treats", "Atrial fibrillation", 6, PREVENTS),  # incorrect
    ],
}


def responder(body: dict) -> dict:
    """Known assessments for Metformin and Warfarin; for Aspirin, text that is no tool call (twice)."""
    entity = next((name for name in ("Metformin", "Warfarin") if f'"{name}"' in prompt_text(body)), None)
    if entity is None:
        return {"content": "Aspirin is a drug."}
    return {"tool": requested_tool(body), "args": {"description": f"{entity}.", "relations": REPLIES[entity]}}


def test_precision_recall_and_interval_from_known_replies(scripted_server, tmp_path, monkeypatch):
    server = scripted_server(responder)
    llm = ChatOpenAI(base_url=server.base_url, api_key="t", model="scripted", max_retries=0)
    figures = extraction.evaluate(ITEMS, llm, "scripted", keep_score=4)
    assert (figures["correct"], figures["incorrect"], figures["unlabelled"]) == (4, 2, 1)
    assert figures["precision"] == 0.667 and figures["n_matched"] == 6
    assert figures["positives"] == 7 and figures["recall"] == 0.571
    assert figures["ci95"] == [0.3, 0.903], "Wilson interval of 4 / 6"
    assert figures["unusable_replies"] == 1 and figures["calls"] == 4, "one call each, plus one repair for Aspirin"
    monkeypatch.setattr(confidence_maps, "RELIABILITY", tmp_path / "extraction_reliability.json")
    confidence_maps.RELIABILITY.write_text(json.dumps({"other-model": {"precision": 0.9}}))
    extraction.write_reliability(figures, "test set")
    assert confidence_maps.extraction_reliability("scripted") == 0.667
    assert confidence_maps.extraction_reliability("other-model") == 0.9
    assert confidence_maps.extraction_reliability("unmeasured") == confidence_maps.DEFAULT_RELIABILITY
