"""Open answers' confidence: the model's P(True) and the support of what it cites, mapped per model; the
open-answer judge of `amg bench --open`. Scripted model, real graph."""

from __future__ import annotations

import numpy as np
import pytest

from amg.agents.answer_synthesizer.self_check import answer_likelihood, answer_token_probabilities, token_signals
from amg.evaluation.map_fitting import MONOTONE, fit_open_map
from amg.evaluation.open_answers import judged_option, verdict_of
from amg.tools.llm.confidence_maps import MAPS, CalibrationMap
from benchmarks.calibration import FEATURE_MARGIN, evaluate_open


def test_an_open_map_fitted_on_rows_is_monotone_in_p_true():
    rng = np.random.default_rng(0)
    rows = []
    for i in range(300):
        p = float(rng.uniform(0.05, 0.95))
        rows.append({"correct": bool(rng.uniform() < 0.2 + 0.6 * p), "confidence_basis": {"p_true": p, "support": 0.5}})
    cmap = fit_open_map(rows, {})
    printed = [cmap(p, 0.5) for p in np.linspace(0.01, 0.99, 50)]
    assert cmap.a > 0 and all(b > a for a, b in zip(printed, printed[1:]))


@pytest.mark.parametrize(
    "answer, expected",
    [
        ("Yes, medical students can contribute.", "yes"),
        ("Medical students can contribute to quality assurance.", "yes"),
        ("No. The trial found no benefit.", "no"),
        ("Laparoscopy does not reduce pain after surgery.", "no"),
        ("It may reduce mortality, but the evidence is inconclusive.", "maybe"),
        ("There is no role for leukocyte and CRP measurements in the elderly.", "no"),
        ("It is not clear whether the INR is reliable.", "maybe"),
    ],
)
def test_an_open_answer_commits_to_a_verdict(answer, expected):
    assert verdict_of(answer) == expected


def test_an_open_answer_is_judged_by_the_option_it_names_or_the_nearest():
    options = {"A": "Lateral wall", "B": "Medial wall", "C": "Floor", "D": "Roof"}
    vectors = {
        "The orbital base fractures.": [0.9, 0.44],
        "Lateral wall": [0, 1],
        "Medial wall": [0.6, 0.8],
        "Floor": [0.8, 0.6],
        "Roof": [0, 1],
    }

    def embed(texts):
        return np.array([vectors.get(t, [0, 1]) for t in texts], dtype=float)

    assert judged_option("The medial wall is the thinnest.", options, embed) == "B", "named word for word"
    assert judged_option("The orbital base fractures.", options, embed) == "C", "the nearest by the embedder"
    assert judged_option("No.", {"A": "yes", "B": "no", "C": "maybe"}, embed) == "B"
    assert judged_option("", options, embed) is None
    glands = {"A": "Adrenal", "B": "Bartholin's", "C": "Bulbourethral", "D": "Corpus luteum"}
    assert judged_option("The Bartholin glands lubricate it.", glands, embed) == "B", "the words only it has"
    vectors["Somewhere between the two."] = [0.7, 0.71]  # cosine 0.99 to the medial wall, 0.99 to the floor
    assert judged_option("Somewhere between the two.", options, embed) is None, "no clear lead: no option"
    vectors["Something else entirely."] = [-1, 0]
    assert judged_option("Something else entirely.", options, embed) is None, "near none of them"


def test_the_answers_likelihood_is_read_from_the_tokens_that_wrote_it():
    steps = [
        {"token": t, "logprob": lp}
        for t, lp in [
            ("Answer", 0.0),
            (":", 0.0),
            (" Met", np.log(0.5)),
            ("formin", np.log(0.5)),
            (".", 0.0),
            ("\n", -5.0),
        ]
    ]
    said = "Answer: Metformin.\n"
    assert answer_likelihood(steps, said, "Metformin.") == pytest.approx((0.5 * 0.5 * 1.0) ** (1 / 3))
    assert answer_likelihood(None, said, "Metformin.") is None and answer_likelihood(steps, said, "Insulin") is None


def test_the_first_and_the_least_likely_token_of_the_answer_alone_are_its_token_signals():
    steps = [
        {"token": t, "logprob": np.log(p)}
        for t, p in [
            ("Answer", 0.1),
            (":", 0.2),
            (" Thi", 0.6),
            ("amine", 0.9),
            (" (B", 0.3),
            ("1)", 0.8),
            ("\n", 0.05),
        ]
    ]
    said = "Answer: Thiamine (B1)\n"
    probabilities = answer_token_probabilities(steps, said, "Thiamine (B1)")
    assert probabilities == pytest.approx([0.6, 0.9, 0.3, 0.8]), "the reply's label and line end are not the answer's"
    assert token_signals(probabilities) == {"p_first": 0.6, "p_lowest": 0.3}
    assert token_signals([]) == {}, "an answer not found in the reply has no token signals"


def test_the_calibration_keeps_the_probability_that_tells_right_from_wrong():
    rng = np.random.default_rng(1)
    rows = []
    for i in range(400):
        right = bool(rng.uniform() < 0.4)
        rows.append(
            {
                "id": f"q{i}",
                "correct": right,
                "confidence_basis": {
                    "p_true": 0.9,
                    "p_answer": float(rng.uniform(0.6, 0.95) if right else rng.uniform(0.3, 0.7)),
                    "support": 0.5,
                    "stated": 0.9,
                },
            }
        )
    figures, (cmap, printed, correct) = evaluate_open("kg-offline-open", rows, "m", "d")
    assert figures["chosen_feature"] == "p_answer" == cmap.about["feature"]
    assert figures["p_answer"]["auroc"] > 0.9 and figures["p_true"]["auroc"] == 0.5
    assert figures["p_answer"]["ece_calibrated"] < 0.1 and len(printed) == figures["n_eval"]


def _answers(seed: int, lowest_tells: bool) -> list[dict]:
    """Open answers, 3 in 10 right; P(True) a little higher on right ones; the least likely token's probability
    higher on right ones when ``lowest_tells``, else noise like the other token signals."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(160):
        right = bool(rng.uniform() < 0.3)
        lowest = rng.uniform(0.3, 0.9) if right and lowest_tells else rng.uniform(0.05, 0.6 if lowest_tells else 0.99)
        basis = {
            "p_true": float(rng.uniform(0.5, 0.99) if right else rng.uniform(0.3, 0.9)),
            "p_answer": float(rng.uniform(0.5, 0.99)),
            "p_first": float(rng.uniform(0.1, 0.99)),
            "p_lowest": float(lowest),
            "agreed": float(rng.uniform() < 0.1),
            "revised": 0.0,
            "support": 0.0,
        }
        rows.append({"id": f"q{i}", "correct": right, "confidence_basis": basis})
    return rows


def test_a_token_signal_that_tells_right_from_wrong_is_weighed_and_noise_never_is():
    from amg.evaluation.map_fitting import fit_open_map, fit_signals_map, half, signals_log_loss

    figures, (cmap, _, _) = evaluate_open("kg-offline-open", _answers(0, lowest_tells=True), "m", "d")
    assert figures["chosen_feature"] == "signals" and cmap.weights["p_lowest"] > 1.0
    assert figures["auroc_by_signal"]["p_lowest"] > figures["auroc_by_signal"]["p_first"]

    noise = _answers(1, lowest_tells=False)
    fit = [r for r in noise if half(r["id"]) == "fit"]
    in_sample = signals_log_loss(fit_signals_map(fit, {}), fit) - signals_log_loss(fit_open_map(fit, {}, "p_true"), fit)
    assert in_sample < -FEATURE_MARGIN, "on the rows it was fitted on, noise looks worth weighing"
    figures, (cmap, _, _) = evaluate_open("kg-offline-open", noise, "m", "d")
    assert figures["chosen_feature"] == "p_true" and not cmap.weights, "on the parts left out, it is not"


def test_every_shipped_open_map_is_monotone():
    shipped = sorted(MAPS.glob("*open.json"))
    assert shipped, "an open-answer map ships for the default model"
    for path in shipped:
        cmap = CalibrationMap.load(path)
        grid = np.linspace(0.01, 0.99, 25)
        for support in (0.0, 0.5, 1.0):
            printed = [cmap(p, support) for p in grid]
            assert all(b >= a for a, b in zip(printed, printed[1:])), path.name
        assert cmap(0.5, 1.0) >= cmap(0.5, 0.0), f"{path.name}: support never lowers the confidence"
        rising = {name: w for name, w in cmap.weights.items() if name.startswith("p_") or name in MONOTONE}
        assert all(w >= 0 for w in rising.values()), f"{path.name}: no probability or agreement lowers it"
        assert cmap.about["feature"] in ("p_true", "p_answer") and cmap.about["n_eval"] > 0


def _bag_of_words(texts: list[str]) -> list[list[float]]:
    """Unit vectors of word counts over the words of ``texts`` (a fake embedder: alike only in shared words)."""
    vocabulary = sorted({w.lower() for t in texts for w in t.split()})
    vectors = []
    for t in texts:
        v = np.array([t.lower().split().count(w) for w in vocabulary], dtype=float)
        vectors.append(list(v / (np.linalg.norm(v) or 1.0)))
    return vectors


def test_agreement_with_sampled_answers_reads_what_they_say_beyond_the_question():
    from amg.agents.answer_synthesizer.agreement import agreement, beyond_question

    question = "Deficiency of which vitamin causes Wernicke encephalopathy?"
    assert beyond_question("Wernicke encephalopathy is caused by thiamine deficiency.", question) == (
        "is caused by thiamine"
    )
    assert beyond_question("Vitamin deficiency.", question) == ".", "nothing beyond the question is left"
    samples = ["Thiamine deficiency causes Wernicke encephalopathy.", "Thiamine.", "Vitamin B12 deficiency."]
    # beyond the question: "Thiamine", "Thiamine", "B12"; the answer's "thiamine"
    expected = (1.0 + 1.0 + 0.0) / 3
    assert agreement("Thiamine deficiency.", samples, question=question, embed=_bag_of_words) == pytest.approx(
        expected, abs=1e-4
    )
    restating = ["Wernicke encephalopathy is caused by vitamin deficiency of thiamine."] * 3
    wrong = "Wernicke encephalopathy is caused by vitamin deficiency of niacin."
    assert agreement(wrong, restating, question=question, embed=_bag_of_words) == pytest.approx(3 / 4, abs=1e-4), (
        "is caused by (three shared words of four) agree, not the restated question"
    )
    assert agreement("Thiamine.", [], question=question, embed=_bag_of_words) is None
    assert agreement("", samples, question=question, embed=_bag_of_words) is None


def _sampled(seed: int) -> list[dict]:
    """Open answers, 3 in 10 right, P(True) a little higher on right ones; the agreement with the sampled answers
    high on right ones (the model says it again) and spread on wrong ones."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(200):
        right = bool(rng.uniform() < 0.3)
        basis = {
            "p_true": float(rng.uniform(0.5, 0.99) if right else rng.uniform(0.3, 0.9)),
            "p_answer": float(rng.uniform(0.5, 0.99)),
            "agreed": 0.0,
            "revised": 0.0,
            "support": 0.0,
            "agreement": float(rng.uniform(0.5, 1.0) if right else rng.uniform(0.0, 0.7)),
        }
        rows.append({"id": f"q{i}", "correct": right, "confidence_basis": basis})
    return rows


def test_the_agreement_with_sampled_answers_is_weighed_when_it_tells_right_from_wrong():
    figures, (cmap, printed, correct) = evaluate_open("kg-offline-open", _sampled(2), "m", "d")
    assert figures["chosen_feature"] in ("agreement", "signals") and cmap.weights["agreement"] > 1.0
    assert figures["auroc_by_signal"]["agreement"] > figures["auroc_by_signal"]["p_true"]
    assert figures["auroc_printed"] > figures["p_true"]["auroc"]
    low, high = dict(_sampled(2)[0]["confidence_basis"]), dict(_sampled(2)[0]["confidence_basis"])
    low["agreement"], high["agreement"] = 0.1, 0.9
    assert cmap.score(high, 0.0) > cmap.score(low, 0.0), "more agreement, more confidence"
