"""The relation scorer alone: fake chat model, real graph server."""

from __future__ import annotations

from amg.agents.relation_scorer import (
    EXTRACTED_RELATIONS,
    RELATION_LIST,
)
from amg.prompts import load
from amg.tools.kg import grounding
from amg.tools.kg.schema import CURATED_ONLY, RELATION_INVERSES, RELATION_TYPES, RELATIONS


def test_only_a_short_list_right_after_the_name_and_a_colon_is_spelled_out():
    sentence = "Its adverse effects are gastrointestinal: diarrhea, nausea and abdominal discomfort, which pass."
    assert grounding.listed_members("Gastrointestinal", sentence) == ["diarrhea", "nausea", "abdominal discomfort"]
    assert grounding.listed_members("adverse effects", sentence) == [], "the colon must follow the name"
    assert grounding.listed_members("renal", "Avoid in renal impairment: dose by eGFR.") == []
    long_item = "Second-line drugs: an SGLT2 inhibitor such as empagliflozin or liraglutide."
    assert grounding.listed_members("Second-line drugs", long_item) == [], "a clause is not a list item"


def test_relation_types_have_one_home():
    """schema.py defines them; the prompt receives them as an input and grounding derives its signatures."""
    assert "relations" in load("relation_scoring").inputs and "treated_by" not in load("relation_scoring").text
    listed = {name for line in RELATION_LIST.splitlines() for name in line[2:].split(" (")[0].split(", ")}
    assert listed == set(EXTRACTED_RELATIONS)
    study = {r.name for r in RELATIONS if r.finding}  # the finding reader's (agents/finding_reader/reader.py)
    assert listed == {n for t in set(RELATION_TYPES) - CURATED_ONLY - study for n in (t, RELATION_INVERSES[t])}
    assert set(grounding.SIGNATURES) == set(RELATION_TYPES)
    assert set(grounding._SENTENCE_RULES) <= set(RELATION_TYPES)
