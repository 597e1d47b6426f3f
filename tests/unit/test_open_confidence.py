"""Open answers' confidence: the model's P(True) and the support of what it cites, mapped per model; the
open-answer judge of `amg bench --open`. Scripted model, real graph."""

from __future__ import annotations

import numpy as np
import pytest

from amg.agents.answer_synthesizer.self_check import answer_likelihood
from amg.evaluation.map_fitting import fit_open_map
from amg.evaluation.open_answers import judged_option, verdict_of
from amg.tools.llm.confidence_maps import MAPS, CalibrationMap
from benchmarks.calibration import evaluate_open


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
        assert cmap.about["feature"] in ("p_true", "p_answer") and cmap.about["n_eval"] > 0
