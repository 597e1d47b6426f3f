"""Shared output format of the benchmarks: a readable table, then one JSON line."""

from __future__ import annotations

import json
import os
from pathlib import Path

# the dev sets and the PubMed corpus: ../shared/data beside the checkout (AMG_SHARED_DATA elsewhere)
SHARED_DATA = Path(os.environ.get("AMG_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")


def emit(title: str, rows: list[tuple[str, object]], figures: dict) -> None:
    width = max(len(name) for name, _ in rows) if rows else 10
    print(f"\n{title}\n" + "-" * (width + 20))
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    print(json.dumps(figures), flush=True)
