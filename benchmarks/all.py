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
)


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
    rows = [
        (f"{name}.{key}", value)
        for name, result in figures.items()
        for key, value in result.items()
        if not isinstance(value, (list, dict))
    ]
    emit("All benchmarks", rows, figures)


if __name__ == "__main__":
    main()
