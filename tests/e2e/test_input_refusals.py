"""Bad input is refused before anything starts: each command's check runs before the graph, the model, the embedder
or LangGraph is imported, so the refusal is said at once (the issue's bound: under half a second)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("langgraph", "torch", "neo4j", "sentence_transformers", "chromadb", "langchain_openai")
PROBE = """
import json, sys
from amg.cli.main import main
code = main(json.loads(sys.argv[1]))
print(json.dumps({"code": code, "loaded": [m for m in %r if m in sys.modules]}))
""" % (HEAVY,)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["ask", ""], "Please ask a medical question: the input was empty."),
        (["ask", " \u200b "], "Please ask a medical question: the input was empty."),
        (["ask", "x" * 100_001], "a question is at most 100,000"),
        (["check", ""], "Please state a claim to check: the input was empty."),
        (["check", "word " * 400], "at most"),
        (["kg", "show", ""], "give an entity's name"),
        (["search", "pubmed", ""], "search query is empty"),
        (["ingest", "pubmed", "/nonexistent/file.xml"], "/nonexistent/file.xml: no such file or folder"),
        (["bench", "/nonexistent.jsonl"], "/nonexistent.jsonl: no such file"),
        (["records", "ingest", "/nonexistent.jsonl"], "/nonexistent.jsonl: no such file or folder"),
        (["records", "show", ""], "give a stored patient's id"),
        (["ask", "--record", ""], "--record takes a stored patient's id"),
    ],
)
def test_refused_before_anything_heavy_is_loaded(argv, said):
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argv)], capture_output=True, text=True, timeout=60)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"code": 2, "loaded": []}, done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr
