"""Which sentences settle a claim? The claim check's choice of sentences, on SciFact's gold abstracts, no model.

    python -m benchmarks.claim_rationale [--limit N]

For every claim of ``../shared/data/scifact-claims-train.jsonl`` (CC BY 4.0) with evidence, and each abstract of
``scifact-corpus.jsonl`` (ODC-By 1.0; SciFact, Wadden et al. 2020, Allen Institute for AI) that holds it, each
sentence is scored by agents/claim_checker/settling.py's features against the claim (MiniLM closeness, as the claim
search computes it). It fits the logistic regression ``settling`` ships on the tune claims' gold abstracts (even
ids), prints its weights (the constants of settling.py, as they would be refitted), and reports, per split, how the
sentences are chosen:

- gold rationale sentences among the ``SHOWN`` sentences shown to the model: the closest (the rule before) against
  the likeliest to settle the claim (the shipped weights);
- the sentences quoted as the rationale, precision / recall / F1 against the gold rationale sentences: the two
  closest among the five closest with a later sentence preferred on near ties (the rule before), the likeliest one
  alone, the likeliest two, and the shipped rule (the likeliest, and the next when it is likelier than not).

On a gold abstract whose label the model reads right, the quoted precision is the issue's "sentences quoted for a
right label that are gold"; the claim benchmark (``amg bench`` on the claims file) measures it on what was read.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

import numpy as np

from amg.agents.claim_checker.settling import (
    FEATURES,
    INTERCEPT,
    LIKELY,
    SHOWN,
    WEIGHTS,
    features,
    quoted,
    settling,
)
from amg.evaluation.datasets import load, split_of
from amg.evaluation.map_fitting import _newton
from amg.tools.vectors.embeddings import embed, model_path
from benchmarks.report import SHARED_DATA, emit

SPLITS = ("tune", "held-out")
LATER_SENTENCE = 0.1  # the rule before: added to a shown sentence's closeness at the abstract's end


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="first N claims with evidence of each split")
    args = parser.parse_args(argv)
    logging.getLogger("sentence_transformers").setLevel(logging.WARNING)
    return run(args.limit)


def abstracts(limit: int | None) -> list[dict]:
    """[{split, claim, sentences: [{n, text}], closeness, gold: {n}}] of every gold abstract of the claims."""
    corpus = {}
    with open(SHARED_DATA / "scifact-corpus.jsonl", encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            corpus[str(record["doc_id"])] = record["abstract"]
    claims = [c for c in load(SHARED_DATA / "scifact-claims-train.jsonl").items if c["evidence"]]
    counted = {split: 0 for split in SPLITS}
    chosen = []
    for claim in claims:
        split = split_of(claim)
        if limit and counted[split] >= limit:
            continue
        counted[split] += 1
        for doc, entries in claim["evidence"].items():
            if str(doc) in corpus:
                gold = {i for entry in entries for i in entry["sentences"]}
                chosen.append({"split": split, "claim": claim["question"], "doc": str(doc), "gold": gold})
    path = str(model_path("minilm", Path.home()))
    claims_vec = dict(zip(*_embedded(path, sorted({a["claim"] for a in chosen}))))
    docs = sorted({a["doc"] for a in chosen})
    texts = [s for doc in docs for s in corpus[doc]]
    _, vectors = _embedded(path, texts)
    at, doc_vec = 0, {}
    for doc in docs:
        doc_vec[doc] = vectors[at : at + len(corpus[doc])]
        at += len(corpus[doc])
    for item in chosen:
        item["sentences"] = [{"n": n, "text": t} for n, t in enumerate(corpus[item["doc"]])]
        item["closeness"] = [float(v) for v in doc_vec[item["doc"]] @ claims_vec[item["claim"]]]
    return chosen


def _embedded(path: str, texts: list[str]) -> tuple[list[str], np.ndarray]:
    return texts, np.array(embed(path, [t or "." for t in texts]))


def fit(items: list[dict]) -> tuple[dict[str, float], float]:
    """Unscaled weights and intercept of a logistic regression of "a gold rationale sentence" on ``FEATURES``."""
    rows, outcome = [], []
    for item in items:
        for sentence, row in zip(
            item["sentences"], features(item["claim"], item["sentences"], closeness=item["closeness"])
        ):
            rows.append(row)
            outcome.append(float(sentence["n"] in item["gold"]))
    x = np.array(rows)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    w = _newton(np.hstack([(x - mean) / scale, np.ones((len(x), 1))]), np.array(outcome), 1e-2)
    unscaled = w[:-1] / scale
    return dict(zip(FEATURES, (round(float(v), 4) for v in unscaled))), round(float(w[-1] - unscaled @ mean), 4)


def choices(item: dict, weights: dict[str, float], intercept: float) -> dict[str, set[int]]:
    """The sentences each rule shows and quotes for one gold abstract."""
    close = item["closeness"]
    closest = sorted(sorted(range(len(close)), key=lambda i: -close[i])[:SHOWN])
    last = max(len(close) - 1, 1)
    before = sorted(closest, key=lambda i: -(round(close[i], 4) + LATER_SENTENCE * i / last))[:2]
    settles = settling(
        item["claim"], item["sentences"], closeness=item["closeness"], length=None, weights=weights, intercept=intercept
    )
    likeliest = sorted(sorted(range(len(settles)), key=lambda i: -settles[i])[:SHOWN])
    shown = [{"n": i, "settles": settles[i]} for i in likeliest]
    ranked = sorted(likeliest, key=lambda i: -settles[i])
    return {
        "shown closest": set(closest),
        "shown likeliest": set(likeliest),
        "quoted before (two closest, later on near ties)": set(before),
        "quoted likeliest one": set(ranked[:1]),
        "quoted likeliest two": set(ranked[:2]),
        f"quoted shipped (likeliest, next if ≥ {LIKELY})": set(quoted(shown)),
    }


def run(limit: int | None) -> int:
    items = abstracts(limit)
    fitted, intercept = fit([i for i in items if i["split"] == "tune"])
    figures: dict = {"benchmark": "claim_rationale", "refitted": {**fitted, "intercept": intercept}}
    rows: list[tuple[str, object]] = [("refitted on tune (settling.py's constants)", json.dumps(figures["refitted"]))]
    for split in SPLITS:
        chosen = [i for i in items if i["split"] == split]
        tallies: dict[str, list[int]] = {}
        for item in chosen:
            for rule, picked in choices(item, WEIGHTS, INTERCEPT).items():
                tally = tallies.setdefault(rule, [0, 0, 0])
                tally[0] += len(picked & item["gold"])
                tally[1] += len(picked)
                tally[2] += len(item["gold"])
        figures[split] = {"abstracts": len(chosen)}
        for rule, (hit, picked, gold) in tallies.items():
            if rule.startswith("shown"):
                figures[split][rule] = round(hit / max(gold, 1), 3)
                name = f"{split} (n={len(chosen)} abstracts) gold rationale sentences {rule}"
                rows.append((name, figures[split][rule]))
                continue
            p, r = hit / max(picked, 1), hit / max(gold, 1)
            f1 = 2 * p * r / (p + r) if p + r else 0.0
            figures[split][rule] = {"precision": round(p, 3), "recall": round(r, 3), "f1": round(f1, 3)}
            rows.append((f"{split} {rule}", f"P {p:.3f}  R {r:.3f}  F1 {f1:.3f}"))
    emit("Sentences that settle a claim, SciFact gold abstracts (no model)", rows, figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
