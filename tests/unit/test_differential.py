"""Differential diagnosis from disease-phenotype annotations, and the follow-up question that separates."""

from __future__ import annotations

import pytest

from amg.agents.diagnostician import read_answers
from amg.tools.kg.traversal.differential import Candidate, fold_subtypes, frequency_of, questions, rank

# Two look-alike diseases share fever and rash; only one has hepatosplenomegaly (nearly always),
# the other arthritis (often). A third shares fever only.
ANNOTATIONS = {
    "alpha": {"fever": 0.9, "rash": 0.8, "hepatosplenomegaly": 0.9, "headache": 0.3},
    "beta": {"fever": 0.9, "rash": 0.8, "arthritis": 0.6, "headache": 0.3},
    "gamma": {"fever": 0.9, "cough": 0.9},
}
NAMES = {k: k.title() for k in ANNOTATIONS}


def test_ranking_counts_findings_for_and_against():
    both = rank(ANNOTATIONS, NAMES, present={"fever", "rash"}, absent=set())
    assert {c.key for c in both[:2]} == {"alpha", "beta"} and both[2].key == "gamma"
    assert both[0].probability == pytest.approx(both[1].probability), "look-alikes tie"
    ruled = rank(ANNOTATIONS, NAMES, present={"fever", "rash"}, absent={"hepatosplenomegaly"})
    assert ruled[0].key == "beta" and ruled[1].absent == ["hepatosplenomegaly"]
    assert rank(ANNOTATIONS, NAMES, present={"fever", "rash", "hepatosplenomegaly"}, absent=set())[0].key == "alpha"


def test_best_question_separates_the_leaders():
    candidates = rank(ANNOTATIONS, NAMES, present={"fever", "rash"}, absent=set())
    asked = questions(ANNOTATIONS, candidates, known={"fever", "rash"})
    assert asked[0][0] == "hepatosplenomegaly", "present in one leader nearly always, in the other never"
    assert "headache" not in [f for f, _ in asked], "shared by both leaders equally: tells nothing"
    assert asked[0][1] > dict(asked).get("arthritis", 0)


def test_a_second_question_that_splits_like_the_first_is_not_asked():
    # x and its twin both tell {A, B} from C; y tells A from {B, C}: after x, y carries more than the twin
    annotations = {"a": {"x": 0.98, "x twin": 0.98, "y": 0.98}, "b": {"x": 0.98, "x twin": 0.98}, "c": {}}
    candidates = [Candidate(k, k.upper(), probability=1 / 3) for k in annotations]
    asked = [f for f, _ in questions(annotations, candidates, known=set())]
    assert sorted(asked[:2]) == ["x", "y"], "the twin adds little once x is asked"


def test_subtypes_fold_into_their_disease():
    annotations = {
        "marfan syndrome": {"f": 0.6},
        "neonatal marfan syndrome": {"f": 0.9, "g": 0.9},
        "tuberous sclerosis 1": {"f": 0.5},
        "tuberous sclerosis 2": {"f": 0.7},
        "other": {"f": 0.1},
    }
    candidates = [
        Candidate("neonatal marfan syndrome", "Neonatal Marfan syndrome", probability=0.3),
        Candidate("tuberous sclerosis 2", "Tuberous sclerosis 2", probability=0.2),
        Candidate("marfan syndrome", "Marfan syndrome", probability=0.2),
        Candidate("tuberous sclerosis 1", "Tuberous sclerosis 1", probability=0.2),
        Candidate("other", "Other", probability=0.1),
    ]
    ts = {"key": "tuberous sclerosis", "name": "Tuberous sclerosis", "type": "disease"}
    parents = {
        "neonatal marfan syndrome": [{"key": "marfan syndrome", "name": "Marfan syndrome", "type": "disease"}],
        "tuberous sclerosis 1": [ts],
        "tuberous sclerosis 2": [ts],
        "other": [{"key": "disease", "name": "Disease", "type": "disease"}],
    }
    folded, mixed = fold_subtypes(candidates, annotations, parents)
    assert [(c.name, c.probability, c.subtypes) for c in folded] == [
        ("Marfan syndrome", 0.5, ["neonatal marfan syndrome"]),
        ("Tuberous sclerosis", 0.4, ["tuberous sclerosis 2", "tuberous sclerosis 1"]),
        ("Other", 0.1, []),
    ], "a general parent that is not a candidate and not in the name takes nothing"
    assert mixed["marfan syndrome"]["f"] == pytest.approx((0.3 * 0.9 + 0.2 * 0.6) / 0.5)
    assert mixed["tuberous sclerosis"]["f"] == pytest.approx((0.2 * 0.7 + 0.2 * 0.5) / 0.4)


def test_follow_up_answers_are_read():
    asked = [
        {"finding": "hepatosplenomegaly", "name": "Hepatosplenomegaly"},
        {"finding": "arthritis", "name": "Arthritis"},
    ]
    assert read_answers("Yes", asked[:1]) == {"hepatosplenomegaly": True}
    assert read_answers("There is arthritis but no hepatosplenomegaly.", asked) == {
        "arthritis": True,
        "hepatosplenomegaly": False,
    }
    assert read_answers("not sure", asked) == {}
    assert frequency_of(0.4 + 0.6 * 0.5) == pytest.approx(0.5)


def test_an_answer_in_other_words_is_read():
    asked = [
        {"finding": "ectopia lentis", "name": "Ectopia lentis"},
        {"finding": "arachnodactyly", "name": "Arachnodactyly"},
    ]
    assert read_answers("No lens dislocation, but he has spider fingers.", asked) == {
        "ectopia lentis": False,
        "arachnodactyly": True,
    }
    assert read_answers(
        "no mitral regurgitation", [{"finding": "mitral regurgitation", "name": "Mitral regurgitation"}]
    ) == {"mitral regurgitation": False}
    assert read_answers("No", asked[:1]) == {"ectopia lentis": False}


@pytest.mark.parametrize("module", ["benchmarks.differential", "benchmarks.differential_paraphrase"])
def test_a_graph_with_no_annotated_disease_is_a_one_line_note(module, monkeypatch, capsys):
    import importlib
    import json

    class Unseeded:
        def __init__(self, context):
            self.store = type("Store", (), {"phenotype_annotations": staticmethod(lambda: [])})()
            self.linker = None

        def close(self):
            pass

    bench = importlib.import_module(module)
    monkeypatch.setattr(bench, "Resources", Unseeded)
    monkeypatch.setattr("sys.argv", [module])
    bench.main()
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "seed it first" in json.loads(out[0])["skipped"]


def test_simulated_patients_are_told_coarser_and_ranked_as_the_qa_graph_ranks():
    from amg.tools.phenotypes.lexicon import hpo_lexicon
    from benchmarks.differential import Patients, has, patient

    lexicon = hpo_lexicon()
    spot = lexicon.terms["HP:0000957"]  # Cafe-au-lait spot: few or multiple ones below it
    kinds = sorted(lexicon.terms[c].key for c in lexicon.children["HP:0000957"])
    annotated = {
        "spots": {**dict.fromkeys(kinds, 1.0), "scoliosis": 1.0},
        "spot and fever": {spot.key: 1.0, "fever": 1.0, "lipoma": 1.0},
    }
    rows = [
        {"disease": d, "name": d, "finding": f, "finding_name": f, "confidence": c}
        for d, findings in annotated.items()
        for f, c in findings.items()
    ]
    patients = Patients(rows)
    truth, told = patient(patients, "spots", seed=0)
    assert set(told) == truth == {*kinds, "scoliosis"}, "at the annotations' grain"
    _, told = patient(patients, "spots", seed=0, coarser=1.0)
    assert len(told) == 2 and spot.key in told, "the two kinds of spot told as their parent, once"
    assert lexicon.by_key[told[told.index(spot.key) - 1]] in lexicon.terms[lexicon.by_key["scoliosis"]].parents
    assert has(truth, spot.key) and not has(truth, "fever"), "a patient with multiple spots has spots"
    subset, _ = patients.differential({spot.key}, set())
    assert subset["spots"][spot.key] == subset["spots"][kinds[0]], "true path: a finer term stands for the finding"
    _, ranked = patients.differential({spot.key, "fever"}, set())
    assert ranked[0].key == "spot and fever"
