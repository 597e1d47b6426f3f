"""benchmarks.claim_stance: recorded P(yes) readings re-decided at each threshold, scored against the claims' gold
evidence."""

from __future__ import annotations

from amg.agents.claim_checker import stance as rule
from benchmarks.claim_stance import figures, redo, sweep, sweep_margin

# P(yes) that the paper's sentences show the claim and its opposite, as a small model says them: leaning to "yes"
# on both for a paper on the topic, but more for the side the paper takes.
SUPPORTING = {"claim": 0.8, "opposite": 0.45}
CONTRADICTING = {"claim": 0.35, "opposite": 0.5}
UNRELATED = {"claim": 0.3, "opposite": 0.25}
SUPPORTING_WEAK = {"claim": 0.5, "opposite": 0.3}


def row(ident: str, gold: str, said: dict) -> dict:
    return {
        "id": ident,
        "gold": gold,
        "split": "tune",
        "retrieved": ["7"],
        "readings": {"7": {"yes": said, "named": [1]}},
    }


ROWS = [
    row("2", "supported", SUPPORTING),
    row("4", "contradicted", CONTRADICTING),
    row("6", "contradicted", CONTRADICTING),
    row("8", "not enough evidence", UNRELATED),
]
GOLD = {
    "2": {"7": [{"sentences": [1], "label": "SUPPORT"}]},
    "4": {"7": [{"sentences": [1], "label": "CONTRADICT"}]},
    "6": {"7": [{"sentences": [1], "label": "CONTRADICT"}]},
    "8": {},
}


def test_each_paper_counts_for_the_statement_it_backs_more_when_it_backs_one_enough():
    assert [d["verdict"] for d in redo(ROWS, 0.4)] == [
        "supported",
        "contradicted",
        "contradicted",
        "not enough evidence",
    ]
    assert figures(redo(ROWS, 0.4), GOLD)["abstract_label_only_f1"] == 1.0
    assert redo(ROWS, 0.4)[0]["evidence"] == {"7": {"sentences": [1], "label": "SUPPORT"}}


def test_the_sweep_shows_what_a_higher_threshold_loses_and_leaves_the_shipped_one_alone():
    shipped = rule.ADDRESSED
    swept = sweep(ROWS, GOLD)
    assert rule.ADDRESSED == shipped
    # at 0.6 only the supporting paper backs a statement enough: both contradicted claims fall to "not enough"
    assert swept[0.6]["predicted_verdicts"] == {"supported": 1, "not enough evidence": 3}
    assert swept[0.6]["abstract_label_only_f1"] == round(2 * 1 * (1 / 3) / (1 + 1 / 3), 4)
    # at 0.2 the unrelated paper is read as supporting its claim
    assert swept[0.2]["predicted_verdicts"]["supported"] == 2


def test_the_margin_sweep_shows_what_keeping_every_reading_costs():
    """Claim "10": its gold paper backs the claim at 0.9, a paper on the topic at 0.5. At the shipped margin the
    topical paper counts for neither; with every reading kept (1.0) it is a wrong abstract, and Label-Only
    precision falls from 1 to 1/2."""
    both = {
        "id": "10",
        "gold": "supported",
        "split": "tune",
        "retrieved": ["7", "8"],
        "readings": {"7": {"yes": {"claim": 0.9, "opposite": 0.1}, "named": [1]}, "8": {"yes": SUPPORTING_WEAK}},
    }
    gold = {"10": {"7": [{"sentences": [1], "label": "SUPPORT"}]}}
    margins = sweep_margin([both], gold)
    assert margins[rule.BACKED_MARGIN]["abstract_label_only_f1"] == 1.0
    assert margins[1.0]["abstract_label_only_f1"] == round(2 * 0.5 * 1 / 1.5, 4)
    assert margins[1.0]["verdict_accuracy"] == margins[rule.BACKED_MARGIN]["verdict_accuracy"] == 1.0
