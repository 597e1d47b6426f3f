"""The relation scorer's relation list, prompt and grounding rules, read without a model or a graph."""

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


def test_a_quote_is_read_with_its_whole_sentences_and_the_one_before():
    first = "# Type 2 diabetes: drug therapy Metformin is first-line."
    text = f"{first} The adverse effects of metformin are gastrointestinal. Long-term use can lower B12."
    assert grounding.with_sentence_before(text, "long term use can lower B12") == (
        "The adverse effects of metformin are gastrointestinal. Long-term use can lower B12."
    ), "found by its words, not its punctuation; the sentence before it whole"
    assert grounding.with_sentence_before(text, "are gastrointestinal. Long-term use") == text, (
        "a quote across two sentences, each whole, and the one before the first"
    )
    assert grounding.with_sentence_before(text, "Metformin is") == first, "nothing is before the first"
    assert grounding.with_sentence_before(text, "Aspirin is first-line.") == "", "a quote not in the text"
    assert grounding.with_sentence_before(text, "") == ""
    warfarin = "Warfarin is an anticoagulant. It prevents stroke. Bleeding is its major adverse effect."
    assert grounding.with_sentence_before(warfarin, "Bleeding is its major adverse effect.") == warfarin, (
        "back past a sentence that opens by referring to what was named before it"
    )
    adverse = "The adverse effects of metformin are gastrointestinal."
    assert grounding.with_sentence_before(f"{warfarin} {adverse}", "Bleeding is its") == warfarin
    sildenafil = (
        "Sildenafil treats erectile dysfunction. Taken with nitrates it can cause severe hypotension. "
        "Headache is a common adverse effect."
    )
    assert grounding.with_sentence_before(sildenafil, "Headache is a common adverse effect.") == sildenafil, (
        "back past an opening participle whose subject is a pronoun"
    )
    used = "Metformin is first-line for diabetes. Metformin is a biguanide: it lowers glucose. Used alone it is safe."
    assert grounding.with_sentence_before(used, "Used alone it is safe.") == (
        "Metformin is a biguanide: it lowers glucose. Used alone it is safe."
    ), "a sentence that opens with what it is about ends the way back, whatever pronoun follows"
    its = f"{first} Its adverse effects are gastrointestinal. Long-term use lowers B12."
    assert grounding.with_sentence_before(its, "Long-term use") == its, "back past 'Its adverse effects'"
