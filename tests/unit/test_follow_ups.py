"""A chat's follow-up: asked on its own when its "it" can only mean the previous turn's topic, else read with it."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from amg.graphs.question import prepare_question, refers_back, standalone

METFORMIN = {"key": "metformin", "name": "Metformin"}
ASKED, ANSWERED = "What is metformin used for?", "Metformin is used for treating type 2 diabetes."


@pytest.mark.parametrize(
    ("follow_up", "alone"),
    [
        ("And its most common side effect?", "And metformin's most common side effect?"),
        ("Is it safe in pregnancy?", "Is metformin safe in pregnancy?"),
        ("It causes what?", "Metformin causes what?"),
        ("Does it interact with alcohol?", "Does metformin interact with alcohol?"),
    ],
)
def test_its_it_becomes_the_topic_in_the_conversations_words(follow_up, alone):
    assert standalone(follow_up, [METFORMIN], question=ASKED, answer=ANSWERED) == alone


@pytest.mark.parametrize(
    ("follow_up", "topic", "why"),
    [
        ("Is it possible to overdose?", [METFORMIN], "an empty 'it' stands for nothing"),
        ("Is it safe to stop it?", [METFORMIN], "two of them"),
        ("Does it help her?", [METFORMIN], "another pronoun"),
        ("What about in children?", [METFORMIN], "no 'it' to replace"),
        ("What is its dose?", [METFORMIN, {"key": "insulin", "name": "Insulin"}], "two things the turn was about"),
        (
            "How is it treated?",
            [{"key": "t2dm", "name": "Type 2 diabetes mellitus"}],
            "the answer opens on something else",
        ),
    ],
)
def test_anything_less_sure_is_read_with_the_previous_turn(follow_up, topic, why):
    assert standalone(follow_up, topic, question=ASKED, answer=ANSWERED) is None, why


def test_an_alias_the_user_wrote_is_the_name_used():
    drug = {"key": "metformin", "name": "Metformin", "aliases": ["Glucophage"]}
    said = standalone("What is its dose?", [drug], question="What is Glucophage?", answer="Metformin, a biguanide.")
    assert said == "What is Glucophage's dose?"


def test_it_is_what_the_answer_is_about_not_only_what_was_asked():
    """After "Metformin is the first-line drug …", "its side effects" are metformin's, not diabetes's."""
    diabetes = {"key": "type 2 diabetes", "name": "Type 2 diabetes"}
    first_line = "What is the first-line drug for type 2 diabetes?"
    assert (
        standalone(
            "What are its side effects?", [diabetes], question=first_line, answer="Metformin is the first-line drug."
        )
        is None
    )
    named = standalone("What are its side effects?", [METFORMIN], question=first_line, answer="Metformin.")
    assert named == "What are Metformin's side effects?", "the answer's own word when the question never wrote it"
    lyme = {"key": "lyme disease", "name": "Lyme disease"}
    assert standalone(
        "How is it treated?", [lyme], question="What is Lyme disease?", answer="Lyme disease is an infection."
    ) == ("How is Lyme disease treated?")


def _chat(said: str, topic: list[dict]) -> dict:
    earlier = [
        HumanMessage("What is metformin used for?"),
        AIMessage("Metformin treats type 2 diabetes.\nConfidence: 0.6"),
    ]
    return {"messages": [*earlier, HumanMessage(said)], "topic": topic}


def test_a_new_question_of_its_own_is_not_mixed_with_the_previous_turn():
    state = _chat("Which organism causes Lyme disease?", [METFORMIN])
    assert prepare_question(state, lambda said: False)[0] == "Which organism causes Lyme disease?"
    leaning = prepare_question(state, lambda said: True)[0]
    assert "(Previous question: What is metformin used for?" in leaning
    assert "Previous answer: Metformin treats type 2 diabetes.)" in leaning and "Confidence" not in leaning


def test_a_follow_up_that_cannot_be_asked_alone_keeps_the_previous_turn():
    question = prepare_question(_chat("And in children?", [METFORMIN]), lambda said: True)[0]
    assert question.startswith("And in children?\n(Previous question: What is metformin used for?")
    assert prepare_question(_chat("And its dose?", [METFORMIN]), lambda said: True)[0] == "And metformin's dose?"


def _spot(text: str) -> list[str]:
    """A stand-in vocabulary: the entities these tests name."""
    known = ("metformin", "alcohol", "chest pain", "pregnancy", "lyme disease", "side effect", "treatment")
    return [w for w in known if w in text.lower()]


@pytest.mark.parametrize(
    "said",
    [
        "And in children?",
        "What about pregnancy?",
        "Does it interact with alcohol?",
        "Is this serious?",
        "Why?",
        "Does she need insulin?",
        "What are the side effects?",
        "How long should treatment last?",
    ],
)
def test_a_message_that_leans_on_the_previous_turn(said):
    assert refers_back(said, _spot)


@pytest.mark.parametrize(
    "said",
    [
        "Which organism causes Lyme disease?",
        "Metformin: is it safe?",
        "A 60-year-old man has chest pain. He is sweating.",
        "A woman in her first pregnancy asks whether her tiredness is normal.",
        "Which of the following closes and seals off the lower airway during swallowing?",
        "What are the side effects of metformin?",
    ],
)
def test_a_question_of_its_own(said):
    assert not refers_back(said, _spot)


def test_this_drug_is_the_topic_when_the_word_fits_its_kind():
    drug = {**METFORMIN, "type": "drug"}
    assert (
        standalone("Is this drug safe in pregnancy?", [drug], question=ASKED, answer=ANSWERED)
        == "Is metformin safe in pregnancy?"
    )
    assert (
        standalone("Is that medicine's effect lasting?", [drug], question=ASKED, answer=ANSWERED)
        == "Is metformin's effect lasting?"
    )
    assert standalone("What causes this symptom?", [drug], question=ASKED, answer=ANSWERED) is None, (
        "a symptom is not the drug"
    )
    assert standalone("Does this drug interact with it?", [drug], question=ASKED, answer=ANSWERED) is None, (
        "two references"
    )
