"""`make bench`: every benchmark in turn, then one table of their figures."""

from __future__ import annotations

import json
import subprocess
import sys

from benchmarks.report import emit

BENCHMARKS = (
    "startup",
    "kg_scale",
    "ingest",
    "pipeline",
    "build",
    "differential",
    "phenotype_recognition",
    "coverage",
    "pubmed_index",
    "literature_recall",
    "claim_retrieval",
    "claim_rationale",
    "robustness",
    "differential_paraphrase",
    "pubmed_sync",
    "records_scale",
    "ddxplus_reading",
    "extraction",
)
# benchmarks that read what another run made, or ask the model for an hour: run by hand (docs/benchmarks.md)
SKIPPED = {
    "calibration": "reads an `amg bench` run's folder (fits and reports the confidence maps)",
    "open_answers": "judges the open answers of an `amg bench --open` run's folder",
    "claim_stance": "re-decides the stances of an `amg bench` claims run's results",
    "chat_turns": "asks the model each question of a dev set twice (an hour and more on two cores)",
}


def main() -> None:
    figures = {}
    for name in BENCHMARKS:
        print(f"== {name}", flush=True)
        proc = subprocess.run([sys.executable, "-m", f"benchmarks.{name}"], capture_output=True, text=True)
        print(proc.stdout, end="")
        last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
        try:
            figures[name] = json.loads(last)
        except ValueError:
            figures[name] = {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1]}
    for name, why in SKIPPED.items():
        print(f"== {name}: skipped, {why}", flush=True)
    rows = [
        (f"{name}.{key}", value)
        for name, result in figures.items()
        for key, value in result.items()
        if not isinstance(value, (list, dict))
    ]
    emit("All benchmarks", rows, figures)


if __name__ == "__main__":
    main()
