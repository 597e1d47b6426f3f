"""`amg bench`'s arguments as its own parser makes them, for tests that call the bench directly."""

from __future__ import annotations

from pathlib import Path

from amg.cli.main import build_parser


def bench_args(dataset: Path | str, method: str, out: Path | str, **extra):
    args = build_parser().parse_args(["bench", str(dataset), "--method", method, "--out", str(out)])
    for name, value in extra.items():
        setattr(args, name, value)
    return args
