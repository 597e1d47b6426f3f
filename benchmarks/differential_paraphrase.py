"""The differential's simulated patients written as a clinician would: their findings in HPO's other words.

Beside benchmarks/differential.py's patients (3 findings given as HPO term keys), the same patients'
findings are written as one sentence, each finding in one of its synonyms or layperson labels (never
its name; a term that has none keeps its name, and is counted), and read back by
  - the vocabulary spotter (graph names and aliases as whole word n-grams: the ``vocabulary`` parser), and
  - the phenotype recogniser (tools/phenotypes: any word order and morphology, negation), and
  - both, as the QA graph reads a case with the vocabulary parser (agents/diagnostician.case_findings),
then ranked the same way, before and after 3 information-gain follow-up questions answered with the
patient's truth. With ``--model`` a fourth reader is both plus the model, as the QA graph's parser reads a case whose
findings the recogniser cannot read (fewer than two): the model names them clinically (agents/query_parser.py
``lay_findings``) and the recogniser reads its names. A case read with no finding counts as a miss. Prints a table
and a last-line JSON object.

    python -m benchmarks.differential_paraphrase [--patients 200] [--seed 0] [--coarser 0.3] [--model 1.5b]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time

from amg.agents.diagnostician import case_findings
from amg.agents.query_parser import LAY_BELOW, lay_findings
from amg.graphs.context import Context
from amg.graphs.resources import Resources
from amg.tools.kg.traversal.differential import questions
from amg.tools.llm.structured import Usage
from amg.tools.phenotypes.lexicon import SCOPE_WEIGHT, Lexicon, hpo_lexicon
from amg.tools.phenotypes.loose import loosely_read
from amg.tools.phenotypes.recognizer import recognise
from benchmarks.differential import NO_PATIENTS, REVEALED, ROUNDS, Patients, has, patient
from benchmarks.report import emit

_ACRONYM = re.compile(r"[A-Z0-9]{2,}")


def paraphrase(term_key: str, lexicon: Lexicon, rng: random.Random) -> tuple[str, bool]:
    """(words for the finding, whether they differ from its name): one of its synonyms, drawn at random."""
    term = lexicon.terms[lexicon.by_key[term_key]]
    others = [
        label
        for label, weight in term.labels[1:]
        if weight >= SCOPE_WEIGHT["RELATED"] and label.lower() != term.name.lower() and not _ACRONYM.search(label)
    ]
    return (rng.choice(others), True) if others else (term.name, False)


def sentence(findings: list[str]) -> str:
    return (
        "A patient with "
        + (", ".join(findings[:-1]) + " and " + findings[-1] if len(findings) > 1 else findings[0])
        + "."
    )


def read_case(how: str, text: str, linker, llm=None) -> set[str]:
    spotted = [{"key": c.key, "type": c.type} for c in linker.spot(text)] if how != "recogniser" else []
    if how == "vocabulary":
        return {e["key"] for e in spotted if e["type"] == "phenotype"}
    said = recognise(text)
    if how == "model" and len(case_findings(spotted, text, {})[0] - set(loosely_read(said))) < LAY_BELOW:
        spotted += lay_findings(text, llm, linker=linker, usage=Usage(), negated={m.key for m in said if m.negated})
    return case_findings(spotted, text, {})[0]


def simulate(
    patients: Patients, disease: str, seed: int, how: str, linker, lexicon: Lexicon, llm=None, coarser: float = 0.0
) -> tuple:
    """(top-1 before, top-5 before, top-1 after, top-5 after, findings read right, findings, reworded)."""
    truth, given = patient(patients, disease, seed, coarser)  # the patients of benchmarks/differential.py
    words = random.Random(f"{seed}:{disease}:words")
    written = [paraphrase(f, lexicon, words) if f in lexicon.by_key else (f, False) for f in given]
    present = (
        set(given) - lexicon.keys_above(set(given))
        if how == "names"
        else read_case(how, sentence([w for w, _ in written]), linker, llm)
    )
    right, absent = len(present & set(given)), set()
    subset, ranked = patients.differential(present, absent)
    before = [c.key for c in ranked]
    for _ in range(ROUNDS if ranked else 0):
        asked = questions(subset, ranked, known=present | absent, limit=1)
        if not asked:
            break
        (present if has(truth, asked[0][0]) else absent).add(asked[0][0])
        subset, ranked = patients.differential(present, absent)
    after = [c.key for c in ranked]
    return (
        disease in before[:1],
        disease in before[:5],
        disease in after[:1],
        disease in after[:5],
        right,
        len(given),
        sum(changed for _, changed in written),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--patients", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--coarser", type=float, default=0.0, help="share of told findings told as a parent term")
    parser.add_argument("--model", help="also read each case with this embedded model (0.5b, 1.5b) as the parser does")
    args = parser.parse_args()
    res = Resources(Context(local_model=args.model) if args.model else Context())
    started = time.perf_counter()
    patients = Patients(res.store.phenotype_annotations())
    lexicon = hpo_lexicon()
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
        "load_s": round(time.perf_counter() - started, 1),
    }
    rows = []
    for how in ("names", "vocabulary", "recogniser", "both", *(["model"] if args.model else [])):
        started = time.perf_counter()
        llm = res.llm if how == "model" else None
        hits = [simulate(patients, d, args.seed, how, res.linker, lexicon, llm, args.coarser) for d in diseases]
        n, findings = len(hits), sum(h[5] for h in hits)
        top = [round(sum(h[i] for h in hits) / n, 3) for i in range(4)]
        read = round(sum(h[4] for h in hits) / findings, 3)
        figures.update(
            {
                f"{how}_top1_before": top[0],
                f"{how}_top5_before": top[1],
                f"{how}_top1_after": top[2],
                f"{how}_top5_after": top[3],
                f"{how}_findings_read": read,
                f"{how}_ms_per_patient": round((time.perf_counter() - started) * 1000 / n, 1),
            }
        )
        figures["reworded_share"] = round(sum(h[6] for h in hits) / findings, 3)
        label = {
            "names": "HPO names as given (an ancestor of another dropped, as any reading)",
            "both": "paraphrased, read by both",
            "model": f"paraphrased, read by both and the {args.model} model where they read fewer than two",
        }.get(how, f"paraphrased, read by the {how}")
        rows.append(
            (
                label,
                f"findings read {read:.3f}  top-1 {top[0]:.3f}  top-5 {top[1]:.3f}  "
                f"after {ROUNDS} questions top-1 {top[2]:.3f}  top-5 {top[3]:.3f}",
            )
        )
    res.close()
    emit(
        f"Differential diagnosis, {len(diseases)} simulated patients, {REVEALED} findings each "
        f"({figures['reworded_share']:.0%} of them reworded)",
        rows,
        figures,
    )


if __name__ == "__main__":
    main()
