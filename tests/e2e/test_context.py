"""Context: typed settings read from the environment, nothing heavy imported, the CLI's choices, shared Resources."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("chromadb", "torch", "tantivy", "Bio", "sentence_transformers", "numpy", "langchain_core", "neo4j")


def test_importing_context_loads_nothing_heavy():
    code = f"import sys, amg.graphs.context; print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"
