"""Reading DDXPlus cases told as text back into their evidences (tools/records/ddxplus_reading.py), and how close a
diagnosis from the codes read comes to one from the gold codes.

ddxplus-dev.jsonl is split by line: the fit half (even line numbers, from 0) chooses the reader's two thresholds (the
share of a key phrase's weight a clause must hold, then the MiniLM cosine a clause must reach to name an evidence no
key phrase names), the report half (odd) is reported.
Each half is read twice: as the dataset writes it (its own questions and answers) and as retold in the patient's
voice from the gold codes (benchmarks/ddxplus_voice.py: first person, other words, shuffled, some facts dropped, a
few evidences denied; written by the reader's author, so an estimate). Scores:
  - precision and recall of the present codes read against the gold codes the text tells: micro over all codes and
    macro over evidences, on base codes (E_55) and on full codes (E_55_@_V_89, E_56_@_5);
  - denials: of the evidences a retelling denies, the share read as absent and the share read as present;
  - age and sex read right;
  - L3 accuracy of a Bernoulli naive Bayes over base codes, fit on ddxplus-records.jsonl (1,376 patients), fed all
    the gold codes, the gold codes the text tells, and the codes read;
  - seconds per case once the reader is built.

    python -m benchmarks.ddxplus_reading [--folder DIR] [--limit N] [--lexical] [--near 0.62]
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from amg.tools.records.ddxplus import Dictionary, Patient, base_code, load_dictionary, load_patients
from amg.tools.records.ddxplus_reading import NEAR, CaseReader
from amg.tools.records.vectors import minilm
from benchmarks.ddxplus_voice import Sayings, retell
from benchmarks.report import SHARED_DATA, emit

SEED = 7
NEAR_GRID = (0.5, 0.55, 0.58, 0.6, 0.62, 0.65, 0.7, 0.75, 1.01)  # 1.01: no meaning fallback
COVERAGE_GRID = (0.6, 0.65, 0.7, 0.75, 0.8)


@dataclass(frozen=True)
class Case:
    patient: Patient
    text: str
    codes: tuple[str, ...]  # gold codes the text tells
    denied: tuple[str, ...] = ()


class NaiveBayes:
    """Bernoulli naive Bayes over base codes: P(pathology) prod P(code present or not | pathology), Laplace."""

    def __init__(self, patients: list[Patient], dictionary: Dictionary):
        self.codes = sorted(dictionary.evidences)
        self.labels = sorted({p.pathology for p in patients})
        index = {c: i for i, c in enumerate(self.codes)}
        counts = np.zeros((len(self.labels), len(self.codes)))
        totals = Counter(p.pathology for p in patients)
        for p in patients:
            row = self.labels.index(p.pathology)
            for code in {base_code(c) for c in p.codes}:
                counts[row, index[code]] += 1
        n = np.array([totals[label] for label in self.labels], dtype=float)[:, None]
        self.on = np.log((counts + 1) / (n + 2))
        self.off = np.log((n - counts + 1) / (n + 2))
        self.prior = np.log(n[:, 0] / n.sum())
        self.index = index

    def predict(self, codes) -> str:
        present = np.zeros(len(self.codes), dtype=bool)
        for code in {base_code(c) for c in codes}:
            if code in self.index:
                present[self.index[code]] = True
        scores = self.prior + self.on[:, present].sum(1) + self.off[:, ~present].sum(1)
        return self.labels[int(np.argmax(scores))]


def score(cases: list[Case], reader: CaseReader, bayes: NaiveBayes) -> dict:
    tp = Counter()
    fp = Counter()
    fn = Counter()
    per_code = defaultdict(lambda: [0, 0, 0])  # base code: tp, fp, fn
    denied = [0, 0, 0]  # denials, read absent, read present
    right_age = right_sex = gold_l3 = told_l3 = read_l3 = 0
    started = time.perf_counter()
    readings = [reader.read(case.text) for case in cases]
    seconds = (time.perf_counter() - started) / max(len(cases), 1)
    for case, reading in zip(cases, readings):
        for level, gold, got in (
            ("base", {base_code(c) for c in case.codes}, {base_code(c) for c in reading.present}),
            ("full", set(case.codes), set(reading.present)),
        ):
            tp[level] += len(gold & got)
            fp[level] += len(got - gold)
            fn[level] += len(gold - got)
            if level == "base":
                for code in gold & got:
                    per_code[code][0] += 1
                for code in got - gold:
                    per_code[code][1] += 1
                for code in gold - got:
                    per_code[code][2] += 1
        present = {base_code(c) for c in reading.present}
        for code in case.denied:
            denied[0] += 1
            denied[1] += code in reading.absent
            denied[2] += code in present
        right_age += reading.age == case.patient.age
        right_sex += reading.sex == case.patient.sex
        gold_l3 += bayes.predict(case.patient.codes) == case.patient.pathology
        told_l3 += bayes.predict(case.codes) == case.patient.pathology
        read_l3 += bayes.predict(reading.present) == case.patient.pathology
    n = max(len(cases), 1)
    figures = {"n": len(cases), "seconds_per_case": round(seconds, 4)}
    for level in ("base", "full"):
        p = tp[level] / max(tp[level] + fp[level], 1)
        r = tp[level] / max(tp[level] + fn[level], 1)
        figures[f"{level}_precision"] = round(p, 3)
        figures[f"{level}_recall"] = round(r, 3)
        figures[f"{level}_f1"] = round(2 * p * r / max(p + r, 1e-9), 3)
    macro_p = [t / (t + f) for t, f, _ in per_code.values() if t + f]
    macro_r = [t / (t + m) for t, _, m in per_code.values() if t + m]
    figures["base_macro_precision"] = round(float(np.mean(macro_p)), 3) if macro_p else None
    figures["base_macro_recall"] = round(float(np.mean(macro_r)), 3) if macro_r else None
    figures["denials"] = denied[0]
    figures["denied_read_absent"] = round(denied[1] / denied[0], 3) if denied[0] else None
    figures["denied_read_present"] = round(denied[2] / denied[0], 3) if denied[0] else None
    figures["age"] = round(right_age / n, 3)
    figures["sex"] = round(right_sex / n, 3)
    figures["l3_gold_codes"] = round(gold_l3 / n, 3)
    figures["l3_told_codes"] = round(told_l3 / n, 3)  # the gold codes the text tells (a retelling drops some)
    figures["l3_read_codes"] = round(read_l3 / n, 3)
    figures["worst"] = _worst(per_code)
    return figures


def _worst(per_code, k: int = 6) -> str:
    """The evidences read worst (most errors), "code tp/fp/fn"."""
    ranked = sorted(per_code.items(), key=lambda item: -(item[1][1] + item[1][2]))[:k]
    return " ".join(f"{code} {t}/{f}/{m}" for code, (t, f, m) in ranked if f + m)


def halves(patients: list[Patient]) -> tuple[list[Patient], list[Patient]]:
    """(fit, report): even and odd line numbers of the dev file."""
    return patients[0::2], patients[1::2]


def dataset_cases(patients: list[Patient]) -> list[Case]:
    return [Case(p, p.text, p.codes) for p in patients]


def voice_cases(patients: list[Patient], dictionary: Dictionary, seed: int, half: str) -> list[Case]:
    rng = Sayings(random.Random(seed), half)
    cases = []
    for patient in patients:
        told = retell(patient, dictionary, rng)
        cases.append(Case(patient, told.text, told.codes, told.denied))
    return cases


def choose(
    cases: list[Case], reader: CaseReader, bayes: NaiveBayes, name: str, grid: tuple[float, ...]
) -> tuple[float, list[tuple[float, float]]]:
    """The value of the reader's ``name`` (coverage, near) with the best base-code F1 on ``cases`` (the fit half,
    both wordings); of equal ones the highest (the surer reading)."""
    tried = []
    for value in grid:
        setattr(reader, name, value)
        tried.append((value, score(cases, reader, bayes)["base_f1"]))
    best = max(tried, key=lambda t: (t[1], t[0]))[0]
    setattr(reader, name, best)
    return best, tried


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", default=str(SHARED_DATA / "patients"))
    parser.add_argument("--limit", type=int, default=0, help="cases per half (0: all)")
    parser.add_argument("--lexical", action="store_true", help="key phrases only, no meaning fallback")
    parser.add_argument("--near", type=float, default=None, help="skip the choice on the fit half, use this one")
    args = parser.parse_args(argv)
    _one_thread()
    folder = Path(args.folder)
    dictionary = load_dictionary(folder)
    records = load_patients(folder / "ddxplus-records.jsonl")
    fit, report = halves(load_patients(folder / "ddxplus-dev.jsonl"))
    if args.limit:
        fit, report = fit[: args.limit], report[: args.limit]
    bayes = NaiveBayes(records, dictionary)
    started = time.perf_counter()
    embed = None if args.lexical else _memo(minilm())
    reader = CaseReader(dictionary, embed=embed)
    built = time.perf_counter() - started
    sets = {
        "fit dataset": dataset_cases(fit),
        "fit voice": voice_cases(fit, dictionary, SEED, "fit"),
        "report dataset": dataset_cases(report),
        "report voice": voice_cases(report, dictionary, SEED + 1, "report"),
    }
    fitting = sets["fit dataset"] + sets["fit voice"]
    near = NEAR if args.near is None else args.near
    reader.near = 2.0  # phrases alone while the coverage is chosen
    coverage, tried_coverage = choose(fitting, reader, bayes, "coverage", COVERAGE_GRID)
    reader.near = near
    tried_near = []
    if embed is not None and args.near is None:
        near, tried_near = choose(fitting, reader, bayes, "near", NEAR_GRID)
    results = {name: score(cases, reader, bayes) for name, cases in sets.items()}
    rows = [("reader built (s)", f"{built:.1f}"), ("phrase coverage (chosen on fit)", f"{coverage:.2f}")]
    rows += [("  tried (coverage: base F1)", " ".join(f"{a:.2f}:{b:.3f}" for a, b in tried_coverage))]
    rows += [("meaning threshold (chosen on fit)", f"{near:.2f}" if embed else "off")]
    rows += [("  tried (near: base F1)", " ".join(f"{a:.2f}:{b:.3f}" for a, b in tried_near))] if tried_near else []
    for name, f in results.items():
        rows.append(
            (
                f"{name} (n={f['n']})",
                f"base P {f['base_precision']:.3f} R {f['base_recall']:.3f} (macro {f['base_macro_precision']:.3f}/"
                f"{f['base_macro_recall']:.3f}) | full P {f['full_precision']:.3f} R {f['full_recall']:.3f} | "
                f"L3 gold {f['l3_gold_codes']:.3f} told {f['l3_told_codes']:.3f} read {f['l3_read_codes']:.3f} | "
                f"age {f['age']:.2f} sex "
                f"{f['sex']:.2f} | {f['seconds_per_case'] * 1000:.0f} ms/case",
            )
        )
        if f["denials"]:
            rows.append(
                (
                    f"  {name} denials",
                    f"{f['denials']} denied: read absent {f['denied_read_absent']:.3f}, "
                    f"read present {f['denied_read_present']:.3f}",
                )
            )
        rows.append((f"  {name} worst (tp/fp/fn)", f["worst"]))
    figures = {"near": near if embed else None, "coverage": coverage, "reader_build_seconds": round(built, 1)}
    figures.update(
        {name.replace(" ", "_"): {k: v for k, v in f.items() if k != "worst"} for name, f in results.items()}
    )
    emit("DDXPlus reading: text -> evidences (fit half chooses, report half reports)", rows, figures)


def _memo(embed):
    """``embed`` with its vectors kept by text (the fit half is read once per threshold tried)."""
    held: dict[str, np.ndarray] = {}

    def vectors(texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in held]
        if missing:
            held.update(zip(missing, embed(missing)))
        return np.stack([held[t] for t in texts]) if texts else embed(texts)

    return vectors


def _one_thread() -> None:
    """One torch thread: the machine's cores are shared, and a small model's batches gain little from more."""
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:  # lexical reading needs no torch
        pass


if __name__ == "__main__":
    main()
