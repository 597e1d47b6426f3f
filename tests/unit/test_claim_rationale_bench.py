"""The claim-rationale benchmark's fit: unscaled weights that score sentences as the fitted regression does."""

from amg.agents.claim_checker.settling import settling
from benchmarks.claim_rationale import choices, fit


def item(claim: str, texts: list[str], closeness: list[float], gold: set[int]) -> dict:
    return {
        "split": "tune",
        "claim": claim,
        "sentences": [{"n": n, "text": t} for n, t in enumerate(texts)],
        "closeness": closeness,
        "gold": gold,
    }


def abstracts() -> list[dict]:
    # the finding is always the last sentence and never the closest: an aim sentence restates the claim
    out = []
    for k in range(12):
        claim = f"Drug {k} lowers blood pressure."
        texts = [
            f"We investigated whether drug {k} lowers blood pressure.",
            "Patients were enrolled at three centres.",
            f"Drug {k} lowered systolic pressure by {k + 5} mmHg (p < 0.01).",
        ]
        out.append(item(claim, texts, [0.9, 0.2, 0.7 + 0.01 * k], {2}))
    return out


def test_the_fitted_weights_rank_the_finding_above_the_closer_aim_sentence():
    items = abstracts()
    weights, intercept = fit(items)
    for one in items:
        settles = settling(
            one["claim"],
            one["sentences"],
            closeness=one["closeness"],
            length=None,
            weights=weights,
            intercept=intercept,
        )
        assert max(range(3), key=lambda i: settles[i]) == 2, one["claim"]
        assert settles[2] > 0.5 > settles[0]
    picked = choices(items[0], weights, intercept)
    assert picked["quoted before (two closest, later on near ties)"] == {0, 2}, "closeness quotes the aim"
    assert picked["quoted likeliest one"] == {2}
    assert weights["aim"] < 0 < weights["position"]
