"""Diagnosis by follow-up questions: simulated patients from the graph's HPO annotations.

Each patient has one disease (annotated with >= 8 phenotypes); each annotated phenotype is
present with its annotated frequency. The case starts with 3 of the present findings; the
rest is withheld. The differential (tools/kg/traversal/differential.py) is ranked, then 3 follow-up
questions are answered with the patient's truth: the findings with the most expected
information gain (as `amg ask` proposes them) against findings picked at random among the
candidates' phenotypes. Reports top-1/top-5 accuracy before and after, on the seeded graph
of AMG_DATA_DIR. The candidates are ranked as the QA graph ranks them (agents/diagnostician.py, before
subtypes fold), with HPO's true-path rule: a disease annotated with a finer term than a told finding has it.
Patients drawn from the annotations tell their findings at the annotations' own grain, where that rule can
only help look-alikes; a clinician often tells them coarser ("seizures" for generalized tonic-clonic ones):
with ``--coarser Q`` each told finding is one of its HPO parents with probability Q.

    python -m benchmarks.differential [--patients 200] [--seed 0] [--coarser 0.3]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import defaultdict

from amg.agents.diagnostician import CANDIDATE_POOL, FINER, read_annotations
from amg.graphs.context import Context
from amg.graphs.resources import Resources
from amg.tools.kg.traversal.differential import inherit, questions, rank
from amg.tools.phenotypes.lexicon import hpo_lexicon
from benchmarks.report import emit

SHOWN, ROUNDS, REVEALED = 10, 3, 3


class Patients:
    """The graph's annotations in memory, with the candidate pool the store query would return."""

    def __init__(self, rows: list[dict]):
        self.annotations, self.names, _ = read_annotations(rows)
        self.with_finding: dict[str, list[str]] = defaultdict(list)
        for disease, findings in self.annotations.items():
            for finding in findings:
                self.with_finding[finding].append(disease)

    def differential(self, present: set[str], absent: set[str]):
        """(the candidates' annotations, the ranking) as the QA graph makes them (agents/diagnostician.py, before
        subtypes fold): the diseases sharing most of the findings or their finer terms, each annotated also with a
        finding it has only in finer terms (HPO's true-path rule)."""
        lexicon = hpo_lexicon()
        finer = {f: lexicon.keys_below(f, FINER) for f in present | absent}
        shared: dict[str, int] = defaultdict(int)
        for finding in present:
            for disease in {d for k in {finding} | finer[finding] for d in self.with_finding.get(k, [])}:
                shared[disease] += 1
        pool = sorted(shared, key=lambda d: (-shared[d], d))[:CANDIDATE_POOL]
        subset = inherit({d: self.annotations[d] for d in pool}, finer)
        return subset, rank(subset, self.names, present=present, absent=absent, limit=SHOWN)


def patient(patients: Patients, disease: str, seed: int, coarser: float = 0.0) -> tuple[set[str], list[str]]:
    """(the patient's findings, the ``REVEALED`` ones told): each annotated finding present with its frequency;
    a told one is one of its HPO parents with probability ``coarser``. The same patient for every reader."""
    rng = random.Random(f"{seed}:{disease}")
    truth = {f for f, p in patients.annotations[disease].items() if rng.random() < p}
    while len(truth) < REVEALED:
        truth |= {rng.choice(sorted(patients.annotations[disease]))}
    told = rng.sample(sorted(truth), REVEALED)
    if coarser:
        lexicon, grain = hpo_lexicon(), random.Random(f"{seed}:{disease}:coarser")
        for n, finding in enumerate(told):
            term = lexicon.terms[lexicon.by_key[finding]] if finding in lexicon.by_key else None
            parents = sorted(lexicon.terms[p].key for p in term.parents if p in lexicon.terms) if term else []
            if parents and grain.random() < coarser:
                told[n] = grain.choice(parents)
        told = list(dict.fromkeys(told))  # two findings told as one parent
    return truth, told


def has(truth: set[str], finding: str) -> bool:
    """The patient's answer to a follow-up question: the finding, or a finer one (true path: focal seizures are
    seizures)."""
    return finding in truth or bool(hpo_lexicon().keys_below(finding) & truth)


def simulate(patients: Patients, disease: str, seed: int, strategy: str, coarser: float = 0.0) -> tuple:
    """(top-1 before, top-5 before, top-1 after, top-5 after) for one patient; both strategies see the same patient."""
    truth, told = patient(patients, disease, seed, coarser)
    present, absent = set(told) - hpo_lexicon().keys_above(set(told)), set()
    subset, ranked = patients.differential(present, absent)
    before = [c.key for c in ranked]
    rng = random.Random(f"{seed}:{disease}:questions")
    for _ in range(ROUNDS):
        known = present | absent
        if strategy == "information gain":
            asked = questions(subset, ranked, known=known, limit=1)
            finding = asked[0][0] if asked else None
        else:
            choices = sorted({f for c in ranked for f in subset[c.key]} - known)
            finding = rng.choice(choices) if choices else None
        if finding is None:
            break
        (present if has(truth, finding) else absent).add(finding)
        subset, ranked = patients.differential(present, absent)
    after = [c.key for c in ranked]
    return disease in before[:1], disease in before[:5], disease in after[:1], disease in after[:5]


NO_PATIENTS = "no disease in the graph has 8 or more HPO findings: seed it first (`amg kg seed --vocabulary hpo`)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--patients", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--coarser", type=float, default=0.0, help="share of told findings told as a parent term")
    args = parser.parse_args()
    res = Resources(Context())
    started = time.perf_counter()
    patients = Patients(res.store.phenotype_annotations())
    res.close()
    loaded_s = time.perf_counter() - started
    eligible = sorted(d for d, f in patients.annotations.items() if len(f) >= 8)
    if not eligible:
        print(json.dumps({"skipped": NO_PATIENTS}))  # one line, read by benchmarks/all.py
        return
    diseases = random.Random(args.seed).sample(eligible, min(args.patients, len(eligible)))
    figures: dict = {
        "patients": len(diseases),
        "questions": ROUNDS,
        "revealed_findings": REVEALED,
        "coarser": args.coarser,
        "annotated_diseases": len(patients.annotations),
        "load_s": round(loaded_s, 1),
    }
    rows = []
    for strategy in ("information gain", "random"):
        started = time.perf_counter()
        hits = [simulate(patients, d, args.seed, strategy, args.coarser) for d in diseases]
        n = len(hits)
        top1_before, top5_before, top1_after, top5_after = (round(sum(h[i] for h in hits) / n, 3) for i in range(4))
        name = strategy.replace(" ", "_")
        figures.update(
            {
                "top1_before": top1_before,
                "top5_before": top5_before,
                f"top1_after_{name}": top1_after,
                f"top5_after_{name}": top5_after,
                f"ms_per_patient_{name}": round((time.perf_counter() - started) * 1000 / n, 1),
            }
        )
        rows.append((f"after {ROUNDS} {strategy} questions", f"top-1 {top1_after:.3f}  top-5 {top5_after:.3f}"))
    rows.insert(
        0,
        (f"first {REVEALED} findings only", f"top-1 {figures['top1_before']:.3f}  top-5 {figures['top5_before']:.3f}"),
    )
    told = f", findings told coarser {args.coarser:.0%} of the time" if args.coarser else ""
    emit(f"Differential diagnosis, {len(diseases)} simulated patients (HPO annotations{told})", rows, figures)


if __name__ == "__main__":
    main()
