"""`make bench` runs every benchmark with a command of its own, or says why it skips it: none is forgotten."""

from __future__ import annotations

from pathlib import Path

from benchmarks.all import BENCHMARKS, SKIPPED

FOLDER = Path(__file__).resolve().parents[2] / "benchmarks"


def test_every_runnable_benchmark_is_run_or_skipped_with_a_reason():
    runnable = {p.stem for p in FOLDER.glob("*.py") if "__main__" in p.read_text(encoding="utf-8")} - {"all"}
    assert runnable - set(BENCHMARKS) - set(SKIPPED) == set()
    assert set(BENCHMARKS) & set(SKIPPED) == set() and all(SKIPPED.values())
    assert set(BENCHMARKS) | set(SKIPPED) <= runnable, "a listed benchmark that no longer exists"
