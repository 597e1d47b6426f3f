"""Shared output format of the benchmarks: a readable table, then one JSON line."""

from __future__ import annotations

import json


def emit(title: str, rows: list[tuple[str, object]], figures: dict) -> None:
    width = max(len(name) for name, _ in rows) if rows else 10
    print(f"\n{title}\n" + "-" * (width + 20))
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    print(json.dumps(figures), flush=True)
