"""benchmarks.claim_stance: stances re-decided under a fitted prior, scored against the claims' gold evidence."""

from __future__ import annotations

from benchmarks.claim_stance import figures, fit, redo

# A model that leans to "supports": on a paper that contradicts the claim it still says "supports" less and
# "contradicts" more than on one that supports it, but "contradicts" never leads.
SUPPORTING = {"supports": 0.7, "contradicts": 0.05, "neither": 0.25}
CONTRADICTING = {"supports": 0.35, "contradicts": 0.25, "neither": 0.4}
UNRELATED = {"supports": 0.2, "contradicts": 0.02, "neither": 0.78}


def row(ident: str, gold: str, said: dict) -> dict:
    return {
        "id": ident,
        "gold": gold,
        "split": "tune",
        "retrieved": ["7"],
        "readings": {"7": {"p": said, "named": [1]}},
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


def test_without_a_prior_the_contradicting_papers_are_lost():
    decided = redo(ROWS, None)
    assert [d["verdict"] for d in decided] == [
        "supported",
        "not enough evidence",
        "not enough evidence",
        "not enough evidence",
    ]
    assert figures(decided, GOLD)["abstract_label_only_f1"] == round(2 * (1 / 1) * (1 / 3) / (1 + 1 / 3), 4)


def test_the_fitted_prior_reads_every_paper_as_the_gold_does():
    prior, after = fit(ROWS, GOLD)
    assert prior["contradicts"] < prior["supports"], "the side the model says readily is the one discounted"
    assert [d["verdict"] for d in redo(ROWS, prior)] == [
        "supported",
        "contradicted",
        "contradicted",
        "not enough evidence",
    ]
    assert after["abstract_label_only_f1"] == 1.0 and after["verdict_macro_f1"] == 1.0
