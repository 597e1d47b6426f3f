"""Every third-party package the code imports is declared in pyproject.toml with a pinned version (one imported but
only installed as another's dependency can move or vanish with that package's next release)."""

from __future__ import annotations

import ast
import importlib.metadata as metadata
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("agents", "graphs", "tools", "cli", "evaluation", "testing", "benchmarks", "prompts")


def imported_packages() -> set[str]:
    names = set()
    for folder in FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n not in ("amg", "benchmarks", "tests")}


def declared() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    out = {}
    for spec in [*project["dependencies"], *project["optional-dependencies"]["dev"]]:
        name, _, version = spec.partition("==")
        out[name.split("[")[0].strip().lower().replace("_", "-")] = version.strip()
    return out


def test_every_imported_package_is_declared_with_a_pinned_version():
    pins, dists = declared(), metadata.packages_distributions()
    missing = []
    for name in sorted(imported_packages()):
        candidates = {d.lower().replace("_", "-") for d in dists.get(name, [name])}
        if not candidates & pins.keys():
            missing.append(f"{name} ({', '.join(sorted(candidates))})")
    assert missing == []
    unpinned = [name for name, version in pins.items() if not version]
    assert unpinned == []
