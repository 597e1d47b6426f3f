"""The claim checker's pieces without a model: a stance read from its word's log-probabilities, the sentence numbers
kept only when shown, the gates, the verdict across papers and its counts, the findings' lines and grounds."""

from __future__ import annotations

import pytest

from amg.agents.claim_checker.findings import finding_lines, grounded
from amg.agents.claim_checker.stance import decide, read_papers, read_reply, shown_sentences, stance_probabilities
from amg.agents.claim_checker.verdict import submission, weigh
from amg.testing.claim_replies import stance


def paper(ident: str, stance_word: str, p: float = 0.9, rationale=(2,)) -> dict:
    probabilities = {stance_word: p}
    return {"id": ident, "stance": stance_word, "probabilities": probabilities, "rationale": list(rationale)}


def test_the_stance_is_read_at_its_word_not_elsewhere_in_the_reply():
    reply = stance("contradicts", (3,), p=0.7)
    probabilities = stance_probabilities(reply["logprobs"])
    assert max(probabilities, key=probabilities.get) == "contradicts"
    assert probabilities["contradicts"] == pytest.approx(0.7, abs=1e-3)
    assert stance_probabilities([{"token": " supports", "logprob": 0.0, "top_logprobs": []}]) is None
    assert read_reply("Sentences: 3, 9, 3\nStance: Supports.", shown=[1, 3]) == ("supports", [3])
    assert read_reply("Stance: neither", shown=[1]) == ("neither", [])


def test_the_stance_prior_lets_a_side_the_model_says_reluctantly_lead():
    said = {"supports": 0.4, "contradicts": 0.3, "neither": 0.3}
    assert decide(said) == ("neither", said)  # no side reaches the floor
    prior = {"supports": 0.6, "contradicts": 0.1, "neither": 0.3}
    stance, probabilities = decide(said, prior)
    weights = {"supports": 0.4 / 0.6, "contradicts": 0.3 / 0.1, "neither": 0.3 / 0.3}
    assert stance == "contradicts"
    assert probabilities["contradicts"] == pytest.approx(weights["contradicts"] / sum(weights.values()))
    assert decide({"supports": 1.0}, prior) == ("supports", {"supports": 1.0})  # a bare word has nothing to divide
    assert decide({}, prior) == ("neither", {})


def test_the_sentences_shown_are_the_closest_in_the_abstracts_order():
    sentences = [{"n": n, "text": f"s{n}"} for n in range(6)]
    shown = shown_sentences(sentences, [0.1, 0.9, 0.2, 0.8, 0.3, 0.7], limit=3)
    assert [s["n"] for s in shown] == [1, 3, 5]


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
    assert finding_lines(said, [2, 3]) == [
        (2, "vitamin D", "worsens", "hip fractures"),
        (3, "cholecalciferol", "bogus", "falls"),
    ]
    sentences = [{"n": 2, "text": "Vitamin D reduced hip fractures."}, {"n": 3, "text": "Falls were fewer."}]
    read = {"id": "s2:9", "title": "Vitamin D", "sentences": sentences, "rationale": [2, 3], "kind": "pubmed"}
    record, problem = grounded((2, "vitamin D", "worsens", "hip fractures"), "claim", read, [], 0.7, "m")
    assert problem is None and record.quotes == [
        {"paper": "s2:9", "n": 2, "text": "Vitamin D reduced hip fractures."},
        {"paper": "s2:9", "n": 3, "text": "Falls were fewer."},
    ]
    assert record.description == "Vitamin D reduced hip fractures." and record.evidence_ids == ["s2:9"]
    assert grounded((2, "vitamin D", "causes", "hip fractures"), "claim", read, [], 0.7, "m")[0] is None
    assert grounded((2, "vitamin D", "worsens", "kidney stones"), "claim", read, [], 0.7, "m")[0] is None
