"""The extraction benchmark: its labelled set, and its scoring against a scripted model with known replies."""

from __future__ import annotations

import pytest

from amg.tools.kg.grounding import mentions
from amg.tools.kg.schema import ENTITY_TYPES, RELATION_TYPES, normalize_key
from benchmarks import extraction


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
