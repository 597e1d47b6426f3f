"""SciFact's official abstract- and sentence-level metrics on hand-made predictions, and the verdict figures."""

from __future__ import annotations

import pytest

from amg.evaluation.scifact_metrics import gold_verdict, retrieval_recall, scifact_metrics, verdict_figures

GOLD = {
    "1": {"10": [{"sentences": [1, 2], "label": "SUPPORT"}, {"sentences": [5], "label": "SUPPORT"}]},
    "2": {"20": [{"sentences": [0], "label": "CONTRADICT"}], "21": [{"sentences": [3], "label": "CONTRADICT"}]},
    "3": {},
}


def test_a_perfect_submission_scores_one_everywhere():
    predictions = {
        "1": {"10": {"sentences": [1, 2, 5], "label": "SUPPORT"}},
        "2": {"20": {"sentences": [0], "label": "CONTRADICT"}, "21": {"sentences": [3], "label": "CONTRADICT"}},
    }
    figures = scifact_metrics(predictions, GOLD)
    assert {name: f["f1"] for name, f in figures.items()} == {
        "abstract_label_only_f1": 1.0,
        "abstract_label_rationale_f1": 1.0,
        "sentence_selection_f1": 1.0,
        "sentence_selection_label_f1": 1.0,
    }


def test_a_rationale_only_partly_predicted_earns_nothing():
    """Sentence 1 of the rationale {1, 2} alone: the label is right, the rationale is not."""
    figures = scifact_metrics({"1": {"10": {"sentences": [1], "label": "SUPPORT"}}}, {"1": GOLD["1"]})
    assert figures["abstract_label_only_f1"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    assert figures["abstract_label_rationale_f1"]["f1"] == 0.0
    assert figures["sentence_selection_f1"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


def test_only_the_first_three_sentences_count_at_the_abstract_level():
    """The complete rationale {5} is the fourth sentence predicted: not within the first three; the sentence level
    counts it (and precision counts all four predicted)."""
    figures = scifact_metrics({"1": {"10": {"sentences": [7, 8, 9, 5], "label": "SUPPORT"}}}, {"1": GOLD["1"]})
    assert figures["abstract_label_rationale_f1"]["f1"] == 0.0
    assert figures["sentence_selection_f1"] == {"precision": 0.25, "recall": pytest.approx(0.3333), "f1": 0.2857}


def test_a_wrong_label_keeps_the_selection_but_not_the_label():
    figures = scifact_metrics({"2": {"20": {"sentences": [0], "label": "SUPPORT"}}}, {"2": GOLD["2"]})
    assert figures["abstract_label_only_f1"]["precision"] == 0.0
    assert figures["sentence_selection_f1"] == {"precision": 1.0, "recall": 0.5, "f1": pytest.approx(0.6667)}
    assert figures["sentence_selection_label_f1"]["f1"] == 0.0


def test_no_evidence_predictions_and_unknown_abstracts():
    """An abstract labelled anything but SUPPORT / CONTRADICT counts nothing; a wrong abstract costs precision."""
    predictions = {
        "2": {"20": {"sentences": [0], "label": "NOT_ENOUGH_INFO"}},
        "3": {"99": {"sentences": [0], "label": "SUPPORT"}},
    }
    figures = scifact_metrics(predictions, {"2": GOLD["2"], "3": GOLD["3"]})
    assert figures["abstract_label_only_f1"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert figures["sentence_selection_f1"]["precision"] == 0.0
    assert scifact_metrics({}, GOLD)["abstract_label_only_f1"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


def test_verdicts_and_retrieval_recall():
    assert [gold_verdict(GOLD[c]) for c in "123"] == ["supported", "contradicted", "not enough evidence"]
    mixed = {"1": [{"sentences": [0], "label": "SUPPORT"}], "2": [{"sentences": [1], "label": "CONTRADICT"}]}
    assert gold_verdict(mixed) == "mixed"
    figures = verdict_figures(["supported", "contradicted", "not enough evidence"], ["supported", "mixed", None])
    assert figures["verdict_accuracy"] == pytest.approx(0.3333)
    assert figures["verdict_macro_f1"] == pytest.approx(0.3333)
    assert retrieval_recall([["10"], ["20", "21"], []], [["1", "2", "10"], ["5", "6", "7", "21"], ["8"]]) == 0.5
    assert retrieval_recall([[]], [["1"]]) is None


def test_a_claims_file_in_scifacts_format_is_read_as_claims(tmp_path):
    from amg.evaluation.datasets import load, split_of

    path = tmp_path / "claims.jsonl"
    path.write_text(
        '{"id": 2, "claim": "A causes B.", "evidence": {"13": [{"sentences": [4], "label": "CONTRADICT"}]}, '
        '"cited_doc_ids": [13]}\n'
        '{"id": 3, "claim": "C prevents D.", "evidence": {}, "cited_doc_ids": [7]}\n'
        '{"id": 4, "claim": "E.", "evidence": {"1": [{"sentences": [0], "label": "MAYBE"}]}}\n'
        "not json\n"
        '{"id": 3, "claim": "again", "evidence": {}}\n'
    )
    dataset = load(path)
    assert dataset.kind == "claims" and [i["id"] for i in dataset.items] == ["2", "3"]
    assert [i["answer"] for i in dataset.items] == ["contradicted", "not enough evidence"]
    assert dataset.items[0]["evidence"] == {"13": [{"sentences": [4], "label": "CONTRADICT"}]}
    assert dataset.skipped == {"malformed": 2, "unknown_answer": 0, "duplicate_id": 1}
    assert [split_of(i) for i in dataset.items] == ["tune", "held-out"]
