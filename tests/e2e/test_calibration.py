"""Answer confidence from the model's own letter probabilities, debiased and calibrated."""

from __future__ import annotations

import math

import pytest
from langchain_openai import ChatOpenAI

from amg.agents.answer_synthesizer.synthesizer import synthesize
from amg.testing.scripted_llm import answer_lines, asks_for_answer
from amg.tools.kg.pipeline_types import Asked, Found
from amg.tools.llm.confidence_maps import CalibrationMap


def step(token: str, alternatives: dict[str, float]) -> dict:
    return {
        "token": token,
        "logprob": math.log(alternatives[token.strip()] if token.strip() in alternatives else 0.5),
        "top_logprobs": [{"token": t, "logprob": math.log(p)} for t, p in alternatives.items()],
    }


def test_scripted_letter_logprobs_become_the_formula_confidence(scripted_server):
    """Over real HTTP: the answer's token log-probabilities -> debiased option probability -> the map."""
    alternatives = {" C": 0.5, " B": 0.3, " A": 0.1, " D": 0.1}
    logprobs = [step("Option", {"Option": 1.0}), step(":", {":": 1.0}), step(" C", alternatives)]
    server = scripted_server(
        lambda body: {**answer_lines(option="C", confidence=0.9), "logprobs": logprobs}
        if asks_for_answer(body)
        else {"content": ""}
    )
    llm = ChatOpenAI(base_url=server.base_url, api_key="x", model="scripted", temperature=0)
    options = {"A": "w", "B": "x", "C": "y", "D": "z"}
    prior = {"A": 0.2, "B": 0.2, "C": 0.4, "D": 0.2}
    cmap = CalibrationMap(a=1.0, b=0.5, c=-0.2, letter_prior=prior)
    out = synthesize(Asked("q?", options, entities=[{"key": "x"}], dialogue=[]), Found(), llm=llm, calibration=cmap)
    raw = {"A": 0.1, "B": 0.3, "C": 0.5, "D": 0.1}
    fair = {k: raw[k] / prior[k] for k in raw}
    total = sum(fair.values())
    assert out["option"] == "B", "C's lead was the letter prior's; B leads once it is divided out"
    expected = 1 / (1 + math.exp(-(math.log((fair["B"] / total) / (1 - fair["B"] / total)) + 0.5 * 0.0 - 0.2)))
    assert out["confidence"] == round(expected, 3)
    assert out["confidence_basis"]["model_option"] == "C" and server.requests[-1]["top_logprobs"] == 20
    plain = synthesize(Asked("q?", options, entities=[{"key": "x"}], dialogue=[]), Found(), llm=llm, calibration=None)
    assert plain["option"] == "C" and plain["confidence"] == round(0.5, 3), "no map: the model's own probability"


def test_a_copied_verdict_list_is_asked_again_and_read_from_the_repaired_reply(scripted_server):
    """The 1.5B copied "<yes, no, maybe>" in 36 of 40 PubMedQA replies: its first word was read as "yes"."""
    said = iter(
        ["Answer: <yes, no, maybe>\nConfidence: 0.7\nCitations: none", "Answer: no\nConfidence: 0.7\nCitations: none"]
    )
    no = [step("Answer", {"Answer": 1.0}), step(":", {":": 1.0}), step(" no", {" no": 0.7, " yes": 0.2, " maybe": 0.1})]
    copied = [
        step("Answer", {"Answer": 1.0}),
        step(":", {":": 1.0}),
        step(" <", {" <": 1.0}),
        step("yes", {"yes": 0.9, "no": 0.1}),
    ]
    server = scripted_server(
        lambda body: (
            {"content": (text := next(said)), "logprobs": copied if "<" in text else no}
            if asks_for_answer(body)
            else {"content": ""}
        )
    )
    llm = ChatOpenAI(base_url=server.base_url, api_key="x", model="scripted", temperature=0)
    out = synthesize(
        Asked("Does X improve Y?", {"A": "yes", "B": "no", "C": "maybe"}, entities=[{"key": "x"}], dialogue=[]),
        Found(),
        llm=llm,
    )
    assert out["option"] == "B" and out["llm_calls"] == 2
    assert out["confidence_basis"]["letter_probs"]["B"] == pytest.approx(0.7)
