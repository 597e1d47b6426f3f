"""Similar patients: findings weighed by rarity and specificity, a finer finding meeting its ancestor, contradictions
against a pair, and the index's counts and cache computing what the formula says."""

from __future__ import annotations

import math

import pytest

from amg.tools.records.similarity import IndexedPatient, PatientIndex, specificity_from_counts

ANCESTORS = {"focal seizure": {"seizure"}, "seizure": set(), "ataxia": set(), "fever": set(), "rash": set()}


def patient(pid: str, present: set[str], absent: set[str] = frozenset(), diagnosis: str = "d") -> IndexedPatient:
    return IndexedPatient(id=pid, present=frozenset(present), absent=frozenset(absent), diagnoses=(diagnosis,))


def index(patients, specificity=lambda f: 1.0, **settings) -> PatientIndex:
    return PatientIndex(patients, lambda f: ANCESTORS.get(f, set()), specificity=specificity, **settings)


def test_the_score_is_shared_weight_over_the_union_less_contradictions():
    patients = [patient("a", {"fever", "rash"}), patient("b", {"fever"}), patient("c", {"ataxia"}, {"rash"})]
    idx = index(patients, contradiction=0.5, gamma=1.0)
    idf = {f: math.log(4 / (n + 1)) for f, n in {"fever": 2, "rash": 1, "ataxia": 1}.items()}
    scores = dict(zip(idx.ids, idx.scores({"rash", "ataxia"}, set())))
    assert scores["a"] == pytest.approx(idf["rash"] / (idf["fever"] + idf["rash"] + idf["ataxia"]))
    assert scores["b"] == pytest.approx(0.0)
    # c shares ataxia but lacks the case's rash: the contradiction costs half its weight
    assert scores["c"] == pytest.approx((idf["ataxia"] - 0.5 * idf["rash"]) / (idf["rash"] + idf["ataxia"]))


def test_a_rare_shared_finding_counts_more_than_a_common_one():
    common = [patient(f"x{i}", {"fever"}, diagnosis="flu") for i in range(5)]
    idx = index([*common, patient("rare", {"ataxia"}, diagnosis="sca"), patient("both", {"fever", "rash"})])
    ranked = [p.id for p in idx.similar({"ataxia", "fever"}, set(), k=2)]
    assert ranked[0] == "rare", "ataxia, held by one patient, weighs more than fever, held by six"


def test_a_finer_finding_meets_its_ancestor_and_is_named_as_the_finer_one():
    idx = index([patient("focal", {"focal seizure"}), patient("other", {"fever"})])
    [found] = idx.similar({"seizure"}, set(), k=1)
    assert found.id == "focal" and found.shared == ("seizure",)
    [back] = index([patient("plain", {"seizure"}), patient("other", {"fever"})]).similar({"focal seizure"}, set(), k=1)
    assert back.shared == ("seizure",), "the patient's recorded finding, met through the case's finer one"


def test_a_finding_one_has_and_the_other_lacks_is_a_contradiction_both_ways():
    patients = [patient("lacks", {"fever"}, {"seizure"}), patient("has", {"fever", "focal seizure"})]
    idx = index([*patients, *(patient(f"x{i}", {"ataxia"}) for i in range(3))], contradiction=0.1)
    scores = dict(zip(idx.ids, idx.scores({"fever", "focal seizure"}, set())))
    lacks = next(p for p in idx.similar({"fever"}, set(), k=5) if p.id == "lacks")
    explained = idx._explain(
        idx.ids.index("lacks"),
        0.0,
        present={"fever", "focal seizure"},
        absent=set(),
        case={"fever", "focal seizure", "seizure"},
    )
    assert explained.contradicted == ("seizure",), "lacking seizures contradicts a focal seizure"
    assert scores["has"] > scores["lacks"] and lacks.contradicted == ()
    against = {p.id: p for p in idx.similar({"fever"}, {"seizure"}, k=2)}
    assert against["has"].contradicted == ("seizure",) and against["lacks"].contradicted == ()
    assert against["lacks"].score > against["has"].score


def test_specificity_weighs_beside_rarity():
    specific = {"ataxia": 1.0, "fever": 0.1}
    patients = [patient("a", {"ataxia"}), patient("f", {"fever"})]
    plain = {p.id: p.score for p in index(patients, gamma=0.0).similar({"ataxia", "fever"}, set(), k=2)}
    weighed = {
        p.id: p.score
        for p in index(patients, specificity=lambda f: specific.get(f, 1.0), gamma=2.0).similar(
            {"ataxia", "fever"}, set(), k=2
        )
    }
    assert plain["a"] == pytest.approx(plain["f"]), "equally rare: a tie without specificity"
    assert weighed["a"] > weighed["f"]
    spec = specificity_from_counts({"one": 1, "half": 50}, 100)
    assert (spec("one"), round(spec("half"), 3), spec("unknown")) == (1.0, round(math.log(2) / math.log(100), 3), 0.5)


def test_exclude_frequencies_and_a_saved_index_give_the_same_answers(tmp_path):
    patients = [
        patient("p1", {"fever", "rash"}, diagnosis="measles"),
        patient("p2", {"fever"}, {"rash"}, diagnosis="measles"),
        patient("p3", {"ataxia"}, diagnosis="sca"),
    ]
    idx = index(patients)
    assert [p.id for p in idx.similar({"fever", "rash"}, set(), k=3, exclude={"p1"})] == ["p2"]
    counts = idx.frequencies(["measles", "sca", "unknown"], {"fever", "rash"})
    assert (counts["measles"].patients, counts["measles"].present, counts["measles"].absent) == (
        2,
        {"fever": 2, "rash": 1},
        {"rash": 1},
    )
    assert "unknown" not in counts and counts["sca"].present == {}
    idx.save(tmp_path / "index")
    loaded = PatientIndex.load(tmp_path / "index", lambda f: ANCESTORS.get(f, set()))
    assert list(loaded.scores({"fever", "focal seizure"}, {"rash"})) == pytest.approx(
        list(idx.scores({"fever", "focal seizure"}, {"rash"}))
    )
    assert loaded.diagnoses == idx.diagnoses and loaded.ids == idx.ids


def test_an_empty_index_finds_nothing():
    idx = index([])
    assert len(idx) == 0 and idx.similar({"fever"}, set(), k=3) == [] and idx.vote({"fever"}, set()) == {}
