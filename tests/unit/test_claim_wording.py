"""Which messages state a claim to check (a declarative statement, in lay or scientific words), and which not."""

from __future__ import annotations

import pytest

from amg.tools.claim_wording import checked_claim, other_language, states_claim
from amg.tools.question_kinds import question_kind

CLAIMS = [
    "Vitamin D supplements prevent fractures in older adults",
    "coffee is bad for your heart",
    "Antibiotics kill viruses.",
    "Sugar makes kids hyperactive",
    "5'-nucleotidase metabolizes 6MP.",
    "32% of liver transplantation programs required patients to discontinue methadone treatment in 2001.",
    "Is it true that vaccines cause autism?",
    "True or false: statins cause diabetes",
    "I heard that cracking your knuckles leads to arthritis",
    "Microcin J25 inhibits nucleoside triphosphate (NTP) binding.",  # a noun that is also a verb ends it
    "There is a positive correlation between hip fractures and statin use.",
    "Metformin is widely used",  # a passive claim ends on its participle
]
NOT_CLAIMS = [
    "metformin side effects",
    "Fever, a rash and joint pain for three days",
    "My son has had a fever for three days",
    "A 45-year-old man presents with chest pain.",
    "Explain how metformin works",
    "What is the first-line drug for diabetes",
    "Does metformin cause lactic acidosis?",
    "And its most common side effect?",
    "Thanks, that helps",
    "The longest bone in the body is the",
    "I think statins cause diabetes",
    # exam stems: statements left to complete, blanks, "all of the following EXCEPT", a task after a statement
    "The walls of bronchioles contain",
    "Synthesis of an RNA/DNA hybrid from a single-stranded RNA template requires",
    "Birds nest on cliffs. With respect to habitat, the treetop-nesting birds are utilizing",
    "A high degree of sexual dimorphism usually indicates intense competition between",
    "This result shows that the song of his species is most likely",
    "Mammals are homeostatic for all of the following EXCEPT",
    "The ______ is the set of observable characteristics.",
    "There are five stages of mitosis. Match the stage of mitosis with its proper component:",
    "You suspect that your patient has an enlarged submandibular salivary gland.",
]


@pytest.mark.parametrize("text", CLAIMS)
def test_a_statement_is_a_claim(text):
    assert states_claim(text) and question_kind(text, {}) == "claim"


@pytest.mark.parametrize("text", NOT_CLAIMS)
def test_a_question_request_or_case_is_not(text):
    assert not states_claim(text)


def test_a_claim_with_options_is_a_question_and_a_check_phrase_is_dropped():
    assert question_kind("Vitamin D prevents fractures", {"A": "yes", "B": "no"}) == "research"
    assert checked_claim("Is it true that vaccines cause autism?") == "vaccines cause autism"
    assert checked_claim("Fact check: coffee is bad for your heart") == "coffee is bad for your heart"


def test_another_language_is_named():
    assert other_language("Les suppléments de vitamine D préviennent les fractures") == "French"
    assert other_language("Los suplementos de vitamina D previenen las fracturas") == "Spanish"
    assert other_language("维生素D可以预防骨折") == "another script"
    assert other_language("De novo mutations cause autism.") is None
    assert other_language("Vitamin D supplements prevent fractures in older adults") is None
