"""The graph store against the real local Bolt server."""

from __future__ import annotations

import pytest

from amg.tools.kg.records import EntityRecord, RelationRecord
from amg.tools.kg.schema import normalize_key, relation_type


def test_key_normalisation():
    assert normalize_key("  Type-2 Diabetes  Mellitus ") == normalize_key("type 2 diabetes mellitus")
    assert normalize_key("Kidneys") == "kidney"
    assert normalize_key("Diabetes") == "diabetes"
    assert normalize_key("Crohn's disease") == "crohn disease"
    assert relation_type("treated by") == ("treats", True)
    assert relation_type("makes people happy") == ("associated_with", False)


def test_relation_without_evidence_is_rejected():
    with pytest.raises(ValueError, match="no evidence"):
        RelationRecord("a", "b", type="treats", confidence=0.5, evidence_ids=[])
    with pytest.raises(ValueError, match="not in the vocabulary"):
        RelationRecord("a", "b", type="DROP DATABASE", confidence=0.5, evidence_ids=["x"])


@pytest.mark.parametrize(
    "name, message", [("", "empty"), ("   ", "empty"), ("x" * 10_000, "at most"), ("!!!", "no letters")]
)
def test_bad_names_get_clear_errors(name, message):
    with pytest.raises(ValueError, match=message):
        EntityRecord(name)


def test_a_learned_relation_reports_its_ends_confidence_evidence_and_the_fields_asked():
    r = RelationRecord(
        "Metformin",
        "Diarrhea",
        type="causes",
        confidence=0.7,
        evidence_ids=["pubmed:1"],
        description="GI upset",
        quotes=[{"n": 2}],
    )
    assert r.learned() == {
        "source": "Metformin",
        "type": "causes",
        "target": "Diarrhea",
        "confidence": 0.7,
        "evidence_ids": ["pubmed:1"],
    }
    assert r.learned("quotes")["quotes"] == [{"n": 2}] and "description" not in r.learned("quotes")
