"""A chat's follow-up: asked on its own when its "it" can only mean the previous turn's topic, else read with it."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from amg.graphs.question import prepare_question, standalone

METFORMIN = {"key": "metformin", "name": "Metformin"}
EARLIER = "What is metformin used for?\nMetformin is used for treating type 2 diabetes."


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
    assert standalone(follow_up, [METFORMIN], EARLIER) == alone


@pytest.mark.parametrize(
    ("follow_up", "topic", "why"),
    [
        ("Is it possible to overdose?", [METFORMIN], "an empty 'it' stands for nothing"),
        ("Is it safe to stop it?", [METFORMIN], "two of them"),
        ("Does it help her?", [METFORMIN], "another pronoun"),
        ("What about in children?", [METFORMIN], "no 'it' to replace"),
        ("What is its dose?", [METFORMIN, {"key": "insulin", "name": "Insulin"}], "two things the turn was about"),
        ("How is it treated?", [{"key": "t2dm", "name": "Type 2 diabetes mellitus"}], "a name never written"),
    ],
)
def test_anything_less_sure_is_read_with_the_previous_turn(follow_up, topic, why):
    assert standalone(follow_up, topic, EARLIER) is None, why


def test_an_alias_the_conversation_wrote_is_the_name_used():
    drug = {"key": "metformin", "name": "Metformin", "aliases": ["Glucophage"]}
    assert standalone("What is its dose?", [drug], "Is Glucophage a biguanide?\nYes.") == "What is Glucophage's dose?"


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
