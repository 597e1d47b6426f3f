"""Citations that state the claim, and a chat's follow-up that keeps its entity: scripted model, real graph."""

from __future__ import annotations

from amg.agents.answer_synthesizer.quotes import key_entities, names_key, quoted


def test_a_research_paper_is_quoted_by_its_conclusion_and_kept_without_a_key_entity():
    paper = {
        "n": 1,
        "id": "pmid:10354335",
        "kind": "pubmed",
        "title": "Can medical students contribute?",
        "snippet": "CONCLUSIONS: Medical students can contribute to quality assurance programmes in day surgery. "
        "BACKGROUND: Audit of patient satisfaction after day surgery is labour-intensive.",
    }
    question = "Can medical students contribute to quality assurance programmes in day surgery?"
    conclusion = "Medical students can contribute to quality assurance programmes in day surgery."
    students = [{"key": "medical student", "name": "medical students"}]
    assert quoted([1], [paper], steps=[], keys=students, answer="A. yes", question=question) == {1: conclusion}
    assert (
        quoted([1], [paper], steps=[], keys=[{"key": "x", "name": "aspirin"}], answer="A. yes", question=question) == {}
    )
    assert quoted(
        [1], [paper], steps=[], keys=[{"key": "x", "name": "aspirin"}], answer="A. yes", question=question, read=[1]
    ) == {1: conclusion}


def test_a_quote_names_the_key_entity_by_name_or_alias():
    metformin = [{"key": "metformin", "name": "Metformin", "aliases": ["Glucophage"]}]
    assert names_key("Glucophage lowered HbA1c.", metformin) and not names_key("Creatine is a guanidine.", metformin)


def test_an_answer_naming_no_question_entity_is_about_what_it_names_in_the_graph():
    t2dm = {"key": "type 2 diabetes mellitus", "name": "Type 2 diabetes mellitus"}
    nodes = [{"key": "metformin", "name": "Metformin", "depth": 1}, {"key": "t2dm", "name": "Ketoacidosis", "depth": 1}]
    keys = key_entities("Metformin is the first-line drug.", [t2dm], nodes)
    assert keys == [{"key": "metformin", "name": "Metformin"}]
    subtype = {
        "source": "Type 2 diabetes mellitus with ketoacidosis",
        "relation": "is_a",
        "target": "Type 2 diabetes mellitus",
        "evidence_ids": ["vocab:icd10:E11"],
        "description": "",
    }
    icd = {"n": 1, "id": "vocab:icd10:E11", "kind": "vocabulary", "title": "E11 Type 2 diabetes mellitus"}
    assert quoted([1], [icd], steps=[subtype], keys=keys, answer="Metformin is the first-line drug.", question="") == {}
    parent = {**subtype, "source": "Type 2 diabetes mellitus", "target": "Diabetes mellitus"}
    said = "Metformin is used for treating type 2 diabetes mellitus."
    assert quoted([1], [icd], steps=[parent], keys=key_entities(said, [], []), answer=said, question="") == {}, (
        "diabetes mellitus is named only inside type 2 diabetes mellitus: not a relation the answer rests on"
    )
