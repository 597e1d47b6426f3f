"""Answer confidence from the model's own letter probabilities, debiased and calibrated."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from amg.tools.llm.confidence_maps import MAPS, CalibrationMap, debias, letter_probabilities


def step(token: str, alternatives: dict[str, float]) -> dict:
    return {
        "token": token,
        "logprob": math.log(alternatives[token.strip()] if token.strip() in alternatives else 0.5),
        "top_logprobs": [{"token": t, "logprob": math.log(p)} for t, p in alternatives.items()],
    }


def test_letter_probabilities_read_the_option_token():
    logprobs = [
        step("Option", {"Option": 0.99}),
        step(":", {":": 0.99}),
        step(" B", {" B": 0.6, " C": 0.2, "B": 0.1, " A": 0.05, "x": 0.05}),
    ]
    probs = letter_probabilities(logprobs, ["A", "B", "C", "D"])
    assert probs["B"] == pytest.approx(0.7 / 0.95) and probs["C"] == pytest.approx(0.2 / 0.95)
    assert probs["D"] == pytest.approx(1e-4), "a letter outside the top alternatives gets a floor, not zero"
    assert letter_probabilities([step("Sure", {"Sure": 1.0})], ["A", "B"]) is None


def test_debias_divides_out_the_letter_prior():
    fair = debias({"A": 0.25, "B": 0.25, "C": 0.5, "D": 0.0001}, {"A": 0.2, "B": 0.2, "C": 0.5, "D": 0.1})
    assert fair["A"] == pytest.approx(fair["B"]) and fair["A"] > fair["C"], "a lean towards C is not evidence"
    assert sum(fair.values()) == pytest.approx(1.0)


def test_calibration_map_is_monotone_and_round_trips(tmp_path):
    cmap = CalibrationMap(a=0.8, b=1.2, c=-0.9, letter_prior={"A": 0.3}, about={"n": 150})
    grid = [cmap(p / 20, s) for s in (0.0, 1.0) for p in range(1, 20)]
    assert all(x < y for x, y in zip(grid[:19], grid[1:19])) and all(x < y for x, y in zip(grid[19:], grid[20:]))
    assert cmap(0.6, 1.0) > cmap(0.6, 0.0), "graph support raises the confidence"
    cmap.save(tmp_path / "m.json")
    assert CalibrationMap.load(tmp_path / "m.json") == cmap


def test_platt_fit_recovers_a_known_map_and_the_split_is_stable():
    import random

    from amg.evaluation.map_fitting import fit_platt, half, letter_prior
    from amg.tools.llm.confidence_maps import logit

    rng = random.Random(0)
    truth = CalibrationMap(a=0.7, b=1.5, c=-0.8)
    p = [rng.uniform(0.05, 0.95) for _ in range(4000)]
    s = [rng.choice([0.0, 0.5, 1.0]) for _ in range(4000)]
    y = [rng.random() < truth(pi, si) for pi, si in zip(p, s)]
    a, b, c = fit_platt(p, s, y)
    assert (a, b, c) == pytest.approx((0.7, 1.5, -0.8), abs=0.15)
    assert logit(0.5) == 0.0 and half("mmlu-med-anatomy-0") == half("mmlu-med-anatomy-0")
    assert {half(f"q{i}") for i in range(20)} == {"fit", "eval"}
    rows = [
        {"confidence_basis": {"letter_probs": {"A": 0.1, "B": 0.2, "C": 0.6, "D": 0.1}}},
        {"confidence_basis": {"letter_probs": {"A": 0.3, "B": 0.2, "C": 0.4, "D": 0.1}}},
    ]
    assert letter_prior(rows) == {"A": 0.2, "B": 0.2, "C": 0.5, "D": 0.1}


def test_each_answering_method_has_its_own_map(tmp_path, monkeypatch):
    from amg.tools.llm import confidence_maps

    for method in ("closed-book", "cot", "kg"):  # the shipped maps keep their file names
        assert confidence_maps.map_for("qwen2.5-coder-1.5b-instruct", method) is not None, method
    monkeypatch.setattr(confidence_maps, "MAPS", tmp_path)
    CalibrationMap(a=2.0, letter_prior={"C": 0.7}).save(confidence_maps.map_path("m", "kg"))
    assert confidence_maps.map_for("m", "kg").letter_prior == {"C": 0.7}
    assert confidence_maps.map_for("m", "closed-book") is None, "a kg prompt's letter lean is not another prompt's"
    assert confidence_maps.map_for("m", "kg", "research") is None, "an exam map is never applied to research questions"
    CalibrationMap(a=3.0).save(confidence_maps.map_path("m", "kg-hybrid", "research"))
    assert confidence_maps.map_path("m", "kg-hybrid", "research").name == "m.kg-hybrid.research.json"


def test_the_graph_reads_its_own_modes_map_first(tmp_path, monkeypatch):
    from amg.graphs.context import Context
    from amg.graphs.resources import Resources
    from amg.tools.llm import confidence_maps

    monkeypatch.setattr(confidence_maps, "MAPS", tmp_path)
    confidence_maps.map_for.cache_clear()
    CalibrationMap(a=1.0).save(confidence_maps.map_path("m", "kg"))
    CalibrationMap(a=2.0).save(confidence_maps.map_path("m", "kg-offline"))
    resources = lambda mode: Resources(Context(data_dir=str(tmp_path), evidence_mode=mode), llm=None)  # noqa: E731
    monkeypatch.setattr(Resources, "model_name", property(lambda self: "m"))
    assert resources("offline").calibration().a == 2.0 and resources("hybrid").calibration().a == 1.0
    assert resources("offline").calibration(kind="research") is None
    confidence_maps.map_for.cache_clear()


def _row(gold: str, probs: dict[str, float]) -> dict:
    return {"gold": gold, "confidence_basis": {"letter_probs": probs, "support": 0.0}}


def test_a_letter_prior_is_kept_only_when_dividing_it_out_helps():
    from amg.evaluation.map_fitting import fit_map

    leaning = [
        _row(g, {"A": 0.3, "B": 0.2, "C": 0.5}) if g != "C" else _row("C", {"A": 0.1, "B": 0.1, "C": 0.8})
        for g in "ABCABC" * 5
    ]  # the model says C whatever the question; A is its runner-up when C is wrong
    assert fit_map(leaning, {}).letter_prior, "a lean that costs answers is divided out"
    fair = [_row(g, {k: (0.6 if k == g else 0.2) for k in "ABC"}) for g in "ABCABC" * 5]
    assert fit_map(fair, {}).letter_prior == {}, "no lean, no prior"


def test_platt_fit_converges_where_a_full_newton_step_diverged():
    """The fit half of a real kg run (option probability, graph support, correct): undamped Newton steps
    ran away to a = 6470 and printed 0.99 for wrong answers; the damped fit stays a modest map."""
    from amg.evaluation.map_fitting import fit_platt

    rows = json.loads((Path(__file__).parents[1] / "data" / "platt_kg_fit_half.json").read_text())
    a, b, c = fit_platt([p for p, _, _ in rows], [s for _, s, _ in rows], [ok for _, _, ok in rows])
    assert all(abs(w) < 5 for w in (a, b, c))
    share = sum(ok for _, _, ok in rows) / len(rows)
    fitted = [1 / (1 + math.exp(-(a * math.log(p / (1 - p)) + b * s + c))) for p, s, _ in rows]
    assert abs(sum(fitted) / len(fitted) - share) < 0.02, "a logistic fit's mean matches the base rate"


def test_support_never_lowers_a_fitted_confidence():
    """A research run: nearly every answer cites its paper (support 0.73); the few off it happen to be wrong
    more often. Fitted freely, support weighs negatively; the fit drops it instead."""
    from amg.evaluation.map_fitting import fit_platt

    rng = np.random.default_rng(3)
    p = [float(rng.uniform(0.4, 0.95)) for _ in range(120)]
    support = [1.0 if i % 12 == 0 else 0.73 for i in range(120)]
    correct = [bool(s < 1.0 and rng.uniform() < x) for x, s in zip(p, support)]
    free = fit_platt(p, support, correct, use_support=True)
    assert free[1] == 0.0 and free[0] > 0, "support would have been weighed negatively"
    assert free == fit_platt(p, support, correct, use_support=False)


def test_the_models_own_probability_never_lowers_a_fitted_confidence():
    """Open exam answers: P(True) near 0.9 whether right or wrong, and here a little higher on wrong ones;
    fitted freely it weighs negatively (surer, less likely right); the fit drops it and rests on support."""
    from amg.evaluation.map_fitting import fit_platt

    rng = np.random.default_rng(5)
    support = [float(rng.choice([0.0, 1.0])) for _ in range(150)]
    correct = [bool(rng.uniform() < (0.15 + 0.4 * s)) for s in support]
    p = [float(rng.uniform(0.86, 0.93) if ok else rng.uniform(0.88, 0.95)) for ok in correct]
    a, b, _ = fit_platt(p, support, correct)
    assert a == 0.0 and b > 0, "the probability would have been weighed negatively"


def test_no_shipped_research_or_open_map_lowers_the_confidence_for_more_support():
    """(The exam maps were fitted before the rule, on runs no longer on hand: kg's weighs support -0.73.)"""
    shipped = sorted({*MAPS.glob("*.research.json"), *MAPS.glob("*open.json")})
    assert shipped
    for path in shipped:
        cmap = CalibrationMap.load(path)
        assert cmap(0.6, 1.0) >= cmap(0.6, 0.0), path.name


def test_verdict_options_are_answered_and_read_by_their_word():
    from amg.agents.answer_synthesizer.answer_lines import answer_line, read_reply

    options = {"A": "yes", "B": "no", "C": "maybe"}
    assert answer_line(options) == "Answer: <one word: yes, no or maybe>"
    assert answer_line({"A": "Allopurinol", "B": "Metformin"}).startswith("Option:")
    assert read_reply("Answer: Yes, students can.\nConfidence: 0.8\nCitations: none", options).option == "A"
    assert read_reply("Answer: no\nConfidence: 0.8\nCitations: none", options).option == "B"
    assert read_reply("Answer: unclear\nConfidence: 0.5", options) is None
    assert read_reply("Option: C\nConfidence: 0.5", options).option == "C", "a letter still counts"
    for copied in ("Answer: <yes, no, maybe>", "Answer: <one word: yes, no or maybe>", "Answer: no, no, maybe"):
        assert read_reply(copied + "\nConfidence: 0.7\nCitations: 1", options) is None, "the format's list is no answer"
    assert read_reply("Answer: no, no effect was found\nConfidence: 0.7", options).option == "B"
    logprobs = [
        step("Answer", {"Answer": 0.99}),
        step(":", {":": 0.99}),
        step(" no", {" no": 0.5, " yes": 0.3, " may": 0.1, "No": 0.05, " The": 0.05}),
    ]
    probs = letter_probabilities(logprobs, ["A", "B", "C"], {"YES": "A", "NO": "B", "MAYBE": "C"})
    assert probs == {"A": pytest.approx(0.3 / 0.95), "B": pytest.approx(0.55 / 0.95), "C": pytest.approx(0.1 / 0.95)}


def test_a_verdict_prior_divides_out_the_lean_but_keeps_how_often_each_verdict_is_right():
    from amg.evaluation.map_fitting import letter_prior

    rows = [{"gold": gold, "confidence_basis": {"letter_probs": {"A": 0.6, "B": 0.3, "C": 0.1}}} for gold in "AABB"]
    shuffled, verdicts = letter_prior(rows), letter_prior(rows, base_rates=True)
    assert debias(rows[0]["confidence_basis"]["letter_probs"], shuffled)["C"] == pytest.approx(1 / 3)
    fair = debias(rows[0]["confidence_basis"]["letter_probs"], verdicts)
    assert fair["C"] < 0.25 and fair["A"] == pytest.approx(fair["B"], abs=1e-3), "'maybe' was never right here"


def test_a_signals_map_weighs_what_tells_right_from_wrong_and_drops_what_points_the_wrong_way():
    """Agreement with the graph separates right from wrong here; P(True) is flat noise, support would lower it."""
    from amg.evaluation.map_fitting import fit_signals_map

    rng = np.random.default_rng(1)
    rows = []
    for i in range(400):
        agreed = i % 3 == 0
        correct = bool(rng.uniform() < (0.85 if agreed else 0.3))
        support = float(rng.uniform()) if not correct else 0.0  # support higher on wrong rows: a wrong-way signal
        basis = {"p_true": float(rng.uniform(0.6, 0.99)), "agreed": float(agreed), "revised": 0.0, "support": support}
        rows.append({"id": str(i), "correct": correct, "confidence_basis": basis})
    cmap = fit_signals_map(rows, {})
    assert cmap.weights["agreed"] > 1.0 and "revised" not in cmap.weights, "a signal that never varies is left out"
    assert cmap.b == 0.0, "support weighed the wrong way is dropped"
    sure = cmap.score({"p_true": 0.9, "agreed": 1.0}, 0.0)
    unsure = cmap.score({"p_true": 0.9, "agreed": 0.0}, 0.0)
    assert sure > 0.7 > 0.4 > unsure
