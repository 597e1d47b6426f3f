"""The claim checker's pieces without a model: a stance read from its word's log-probabilities, the sentence numbers
kept only when shown, the gates, the verdict across papers and its counts, the findings' lines and grounds."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage

from amg.agents.claim_checker.findings import finding_lines, grounded, read_from
from amg.agents.claim_checker.from_graph import papers_from_graph
from amg.agents.claim_checker.settling import features, quoted, settling
from amg.agents.claim_checker.stance import (
    ADDRESSED,
    BACKED_MARGIN,
    behind_the_best,
    decide,
    opposite_of,
    read_papers,
    shown_sentences,
    yes_probability,
)
from amg.agents.claim_checker.verdict import submission, weigh
from amg.agents.finding_reader.ends import comparison_arm
from amg.testing.claim_replies import yes_no
from amg.tools.llm.structured import Usage


def paper(ident: str, stance_word: str, p: float = 0.9, rationale=(2,)) -> dict:
    probabilities = {stance_word: p}
    return {"id": ident, "stance": stance_word, "probabilities": probabilities, "rationale": list(rationale)}


def test_yes_is_read_at_the_first_yes_or_no_token_or_from_the_word_without_log_probabilities():
    reply = yes_no(0.7)
    assert yes_probability(reply["logprobs"], reply["content"]) == pytest.approx(0.7, abs=1e-6)
    assert yes_probability(yes_no(0.2)["logprobs"], "no") == pytest.approx(0.2, abs=1e-6)
    assert yes_probability(None, "Yes.") == 1.0 and yes_probability(None, "no, it does not") == 0.0
    assert yes_probability(None, "Maybe") is None and yes_probability(None, "") is None


def test_a_paper_counts_for_the_statement_it_backs_more_once_it_backs_one_enough():
    stance, probabilities = decide(0.55, 0.8)  # a small model's "yes" to both, more to the opposite
    assert stance == "contradicts"
    assert probabilities == pytest.approx({"supports": 0.11, "contradicts": 0.36, "neither": 0.53})
    assert sum(probabilities.values()) == pytest.approx(1.0)
    assert decide(0.8, 0.45)[0] == "supports"
    assert decide(ADDRESSED - 0.01, 0.1)[0] == "neither", "backs neither statement enough"
    assert decide(0.9, None) == ("supports", {"supports": 0.9, "neither": pytest.approx(0.1)}), "no opposite written"
    assert decide(0.3, None)[0] == "neither" and decide(None, 0.9) == ("neither", {})


def test_an_opposite_that_is_not_a_rewritten_claim_is_refused():
    class Says:
        def __init__(self, text):
            self.text = text

        def bind(self, **_):
            return self

        def invoke(self, messages):
            return AIMessage(self.text)

    claim = "Vitamin D prevents fractures."
    assert opposite_of(claim, Says("Claim: Vitamin D does not prevent fractures.\n"), Usage()) == (
        "Vitamin D does not prevent fractures."
    )
    assert opposite_of(claim, Says("vitamin d prevents fractures"), Usage()) is None, "the claim itself"
    assert opposite_of(claim, Says(""), Usage()) is None
    assert opposite_of(claim, Says("word " * 200), Usage()) is None


def test_the_sentences_shown_are_the_likeliest_to_settle_the_claim_in_the_abstracts_order():
    claim = "Aspirin lowers the risk of stroke."
    sentences = [
        {"n": 0, "text": "Stroke is a leading cause of death and aspirin is widely used."},
        {"n": 1, "text": "We investigated whether aspirin lowers the risk of stroke in older adults."},
        {"n": 2, "text": "We enrolled 4,000 adults aged over 70 years."},
        {"n": 3, "text": "Aspirin lowered the risk of stroke (hazard ratio 0.71, 95% CI 0.60-0.84, p < 0.001)."},
        {"n": 4, "text": "These results show that aspirin lowers the risk of stroke."},
    ]
    closeness = [0.62, 0.80, 0.20, 0.74, 0.78]
    settles = settling(claim, sentences, closeness=closeness, length=len(sentences))
    assert settles[1] < settles[3] and settles[1] < settles[4], "the aim sentence, though closest, is no finding"
    shown = shown_sentences(claim, sentences, closeness=closeness, length=len(sentences), limit=3)
    assert [s["n"] for s in shown] == sorted(s["n"] for s in shown), "in the abstract's order"
    assert {s["n"] for s in shown} >= {3, 4} and 2 not in {s["n"] for s in shown}
    assert all(s["relevance"] == closeness[s["n"]] for s in shown), "each keeps its closeness"


def test_the_likeliest_sentence_is_quoted_and_the_next_only_when_likelier_than_not():
    shown = [{"n": 1, "settles": 0.3}, {"n": 6, "settles": 0.45}, {"n": 8, "settles": 0.2}]
    assert quoted(shown) == [6], "0.3 is not likelier than not"
    shown[0]["settles"] = 0.55
    assert quoted(shown) == [1], "the next, 0.45, is not likelier than not"
    shown[1]["settles"] = 0.7
    assert quoted(shown) == [1, 6], "both, in the abstract's order"
    assert quoted(shown, limit=1) == [6], "the likeliest alone"
    assert quoted([]) == []


def test_features_need_no_abstract_length_offline():
    sentences = [{"n": 2, "text": "Background."}, {"n": 7, "text": "It fell by 20%."}]
    rows = features("x fell", sentences, closeness=[0.5, 0.4])
    assert [round(r[2], 3) for r in rows] == [round(2 / 7, 3), 1.0], "the last numbered sentence counts as last"
    assert rows[1][5] == 1.0 and rows[0][5] == 0.0, "digits"
    assert features("x", [], closeness=[]) == []


def read_paper(ident: str, stance: str, claim_yes: float, opposite_yes: float) -> dict:
    said = {"claim": claim_yes, "opposite": opposite_yes}
    probabilities = decide(claim_yes, opposite_yes)[1]
    return {"id": ident, "stance": stance, "said": said, "probabilities": probabilities, "rationale": [1], "why": ""}


def test_a_paper_backing_its_side_far_less_than_the_best_read_one_counts_for_neither():
    best = read_paper("s2:1", "supports", 0.92, 0.2)
    close_behind = read_paper("s2:2", "contradicts", 0.3, 0.92 - BACKED_MARGIN + 0.01)
    half_hearted = read_paper("s2:3", "supports", 0.5, 0.3)
    unread = {"id": "s2:4", "stance": "neither", "said": {}, "probabilities": {}, "rationale": []}
    kept = behind_the_best([best, close_behind, half_hearted, unread])
    assert [p["stance"] for p in kept] == ["supports", "contradicts", "neither", "neither"]
    assert kept[2]["rationale"] == [] and "under the best-read paper's 0.92" in kept[2]["why"]
    assert weigh(kept)["verdict"] == "mixed", "papers that back their sides about equally all still count"
    assert behind_the_best([half_hearted])[0]["stance"] == "supports", "alone, it is the best-read paper"


def test_papers_far_from_the_claim_are_not_read():
    far = {"id": "s2:1", "shown": [{"n": 0, "text": "x", "relevance": 0.3}], "relevance": 0.3}
    behind = {"id": "s2:2", "shown": [{"n": 0, "text": "y", "relevance": 0.55}], "relevance": 0.55}
    close = {"id": "s2:3", "shown": [], "relevance": 0.8}  # sets the relative floor (0.6); nothing shown to read
    read = read_papers("a claim", [far, behind, close], llm=None, usage=None)  # the model is never called
    assert [p["stance"] for p in read] == ["neither"] * 3
    assert read[0]["why"] == "no sentence close enough to the claim (best similarity 0.30 < 0.60)"


def test_a_paper_on_the_claims_topic_alone_does_not_address_it():
    """The best paper's closest sentence at 0.55 is a paper on the topic, not on the claim: not read, and the claim
    has not enough evidence (the small model would call it "supports")."""
    topical = {"id": "s2:1", "shown": [{"n": 0, "text": "x", "relevance": 0.55}], "relevance": 0.55}
    read = read_papers("a claim", [topical], llm=None, usage=None)  # the model is never called
    assert read[0]["why"] == "no sentence close enough to the claim (best similarity 0.55 < 0.60)"
    assert weigh(read)["verdict"] == "not enough evidence"


def test_the_verdict_counts_the_papers_when_they_disagree():
    mixed = weigh([paper("s2:1", "supports"), paper("s2:2", "supports", 0.6), paper("s2:3", "contradicts", 0.8)])
    assert mixed["verdict"] == "mixed" and mixed["counts"] == {"supports": 2, "contradicts": 1, "neither": 0}
    assert mixed["summary"] == "Mixed evidence: 2 papers support the claim, 1 contradicts it."
    assert mixed["confidence"] == pytest.approx(0.8)
    one = weigh([paper("s2:1", "contradicts", 0.7), paper("s2:2", "neither", 0.0, ())])
    assert (one["verdict"], one["summary"]) == (
        "contradicted",
        "Contradicted: 1 paper contradicts the claim (1 more read do not settle it).",
    )
    none = weigh([])
    assert none["verdict"] == "not enough evidence" and none["confidence"] == 0.8
    assert submission([paper("s2:1", "supports"), paper("s2:2", "neither", 0.0, ())]) == {
        "s2:1": {"sentences": [2], "label": "SUPPORT"}
    }


def test_finding_lines_are_kept_by_sentence_number_and_grounded_in_the_paper():
    said = "2 | vitamin D | worsens | hip fractures\n7 | a | improves | b\nnot a line\n"
    said += "[3] | cholecalciferol | bogus | falls"
    shown = {2: "Vitamin D reduced hip fractures.", 3: "Falls were fewer."}
    assert finding_lines(said, shown) == [
        (2, "vitamin D", "worsens", "hip fractures"),
        (3, "cholecalciferol", "bogus", "falls"),
    ]
    sentences = [{"n": n, "text": text} for n, text in shown.items()]
    read = {"id": "s2:9", "title": "Vitamin D", "sentences": sentences, "rationale": [2, 3], "kind": "pubmed"}
    record, problem = grounded(
        (2, "vitamin D", "worsens", "hip fractures"), "claim", paper=read, entities=[], confidence=0.7, model="m"
    )
    assert problem is None and record.quotes == [
        {"paper": "s2:9", "n": 2, "text": "Vitamin D reduced hip fractures."},
        {"paper": "s2:9", "n": 3, "text": "Falls were fewer."},
    ]
    assert record.description == "Vitamin D reduced hip fractures." and record.evidence_ids == ["s2:9"]
    assert (
        grounded(
            (2, "vitamin D", "causes", "hip fractures"), "claim", paper=read, entities=[], confidence=0.7, model="m"
        )[0]
        is None
    )
    assert (
        grounded(
            (2, "vitamin D", "worsens", "kidney stones"), "claim", paper=read, entities=[], confidence=0.7, model="m"
        )[0]
        is None
    )


def test_finding_lines_as_list_items_or_numbered_one_two_three_are_given_to_the_sentence_naming_their_ends():
    shown = {
        8: "Aspirin use was associated with a lower risk of colorectal cancer (OR 0.66).",
        11: "Daily aspirin reduced the incidence of colorectal adenomas.",
    }
    said = "<sentence number> | <subject> | <relation> | <object>\n- 11 | aspirin | improves | colorectal adenomas"
    assert finding_lines(said, shown) == [(11, "aspirin", "improves", "colorectal adenomas")]
    said = "1 | NSAID use | improves | risk of colorectal cancer\n2 | aspirin | improves | colorectal adenomas\n"
    said += "3 | statins | improves | myocardial infarction\n4 |"
    assert finding_lines(said, shown) == [
        (8, "NSAID use", "improves", "risk of colorectal cancer"),
        (11, "aspirin", "improves", "colorectal adenomas"),
    ], "numbered 1, 2, 3 by the model: each line goes to the sentence that names its ends, or is dropped"


def test_findings_are_read_from_the_two_likeliest_sentences_though_one_is_quoted():
    shown = [
        {"n": 1, "text": "We asked whether D helps.", "settles": 0.1},
        {"n": 4, "text": "D reduced fractures (HR 0.7).", "settles": 0.8},
        {"n": 5, "text": "Falls were fewer with D.", "settles": 0.3},
    ]
    sentences = [{"n": s["n"], "text": s["text"]} for s in shown]
    taken = {"id": "s2:9", "sentences": sentences, "shown": shown, "rationale": quoted(shown)}
    assert taken["rationale"] == [4] and read_from(taken) == [4, 5]
    assert read_from({**taken, "rationale": []}) == [], "a paper that took no side teaches no finding"


class _Kept:
    """A graph holding one finding on paper s2:9 (its quoted sentence) and the paper with the sentences it was read
    with."""

    def findings(self, keys, types, floor):
        return []

    def every_finding(self, types):
        quote = {"paper": "s2:9", "n": 4, "text": "Vitamin D reduced hip fractures (HR 0.7)."}
        return [
            {
                "key": "vitamin d",
                "rel": "DECREASES",
                "other": "hip fracture",
                "name": "hip fracture",
                "subject": "vitamin D",
                "description": quote["text"],
                "quotes": [json.dumps(quote)],
            }
        ]

    def papers_read(self, keys, limit):
        return []

    def evidence(self, ids):
        shown = [
            (1, "We asked whether vitamin D prevents fractures."),
            (4, "Vitamin D reduced hip fractures (HR 0.7)."),
        ]
        kept = [json.dumps({"n": n, "text": t}) for n, t in shown]
        return [{"id": i, "title": "Vitamin D and fractures", "kind": "pubmed", "sentences": kept} for i in ids]


def test_a_paper_reached_by_its_finding_is_read_offline_with_the_sentences_it_was_read_with():
    (paper,) = papers_from_graph("Vitamin D supplements prevent hip fractures", [], _Kept())
    assert paper["id"] == "s2:9" and [s["n"] for s in paper["sentences"]] == [1, 4]


def test_a_comparison_arm_is_not_learned_as_the_intervention_it_was_compared_with():
    sentences = [{"n": 9, "text": "Aspirin reduced cancer incidence compared with placebo (HR 0.63)."}]
    read = {"id": "s2:1", "title": "Aspirin and cancer", "sentences": sentences, "rationale": [9], "kind": "pubmed"}
    aspirin = [{"key": "aspirin", "name": "Aspirin"}]
    for arm in ("aspirin placebo", "placebo", "sham aspirin", "healthy controls", "the control group"):
        record, problem = grounded(
            (9, arm, "worsens", "cancer incidence"), "claim", paper=read, entities=aspirin, confidence=0.7, model="m"
        )
        assert record is None and "comparison arm" in problem, arm
    for tested in ("aspirin", "aspirin versus placebo", "tight glycaemic control"):
        assert not comparison_arm(tested), tested
    assert grounded(
        (9, "aspirin versus placebo", "improves", "cancer incidence"),
        "c",
        paper=read,
        entities=aspirin,
        confidence=0.7,
        model="m",
    )[0]
