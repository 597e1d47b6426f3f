"""The extraction benchmark: its labelled set, and its scoring against a scripted model with known replies."""

from __future__ import annotations

import json

import pytest
from langchain_openai import ChatOpenAI

from amg.testing.scripted_llm import prompt_text, requested_tool
from amg.tools.kg.grounding import mentions
from amg.tools.kg.schema import ENTITY_TYPES, RELATION_TYPES, normalize_key
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


def test_relation_keys_read_inverses_forwards_and_symmetric_types_in_either_order():
    key = extraction.relation_key
    assert key("Type 2 diabetes", "treated_by", "Metformin") == key("metformin", "treats", "type 2 diabetes")
    assert key("Aspirin", "interacts_with", "Warfarin") == key("Warfarin", "interacts with", "Aspirin")
    assert key("Stroke", "causes", "Warfarin") != key("Warfarin", "causes", "Stroke")


@pytest.fixture(scope="module")
def labelled():
    return extraction.load_pairs(extraction.DATA)


def test_labelled_set_is_large_balanced_and_answerable(labelled):
    pairs = [r for item in labelled for r in item["relations"]]
    assert len(pairs) >= 100 and 35 <= len(labelled) <= 45
    assert 0.4 <= sum(r["correct"] for r in pairs) / len(pairs) <= 0.6
    assert len({item["id"] for item in labelled}) == len(labelled)
    for item in labelled:
        assert item["entity_type"] in ENTITY_TYPES and 2 <= len(item["relations"]) <= 4, item["id"]
        keys = [extraction.relation_key(r["source"], r["type"], r["target"]) for r in item["relations"]]
        assert len(set(keys)) == len(keys), f"{item['id']}: two candidates are the same relation"
        for r in item["relations"]:
            assert r["type"] in RELATION_TYPES, (item["id"], r)
            assert normalize_key(item["entity"]) in (normalize_key(r["source"]), normalize_key(r["target"])), r
            assert mentions(item["passage"], [r["source"]]) and mentions(item["passage"], [r["target"]]), r
