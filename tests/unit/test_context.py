"""Context: typed settings read from the environment, nothing heavy imported, the CLI's choices, shared Resources."""

from __future__ import annotations

import pytest

from amg.cli.main import build_parser
from amg.graphs import context as context_module
from amg.graphs.context import SOURCES, Context
from amg.graphs.resources import resources_for
from amg.tools.evidence.finder import EvidenceFinder
from amg.tools.kg.schema import EVIDENCE_KINDS


def test_fields_hold_typed_values_from_the_environment(monkeypatch):
    for name, value in {
        "AMG_TAU": "0.7",
        "AMG_MAX_EVIDENCE": "3",
        "AMG_SOURCES": "pubmed, textbook",
        "AMG_QUESTION_LINKS": "false",
        "AMG_KEEP_ALIVE": "12",
    }.items():
        monkeypatch.setenv(name, value)
    c = Context()
    assert (c.tau, c.max_evidence, c.sources, c.question_links, c.keep_alive) == (
        0.7,
        3,
        ("pubmed", "textbook"),
        False,
        12.0,
    )
    assert isinstance(c.keep_alive, float) and isinstance(c.max_evidence, int)


def test_a_partial_context_from_studio_takes_the_rest_from_the_environment(monkeypatch):
    monkeypatch.setenv("AMG_MAX_DEPTH", "3")
    c = Context(**{"evidence_mode": "offline", "tau": "0.6", "sources": ["pubmed"], "max_nodes": None})
    assert (c.evidence_mode, c.tau, c.sources, c.max_depth, c.max_nodes) == ("offline", 0.6, ("pubmed",), 3, 40)
    with pytest.raises(ValueError, match="AMG_TAU='high' is not a number"):
        Context(tau="high")


def test_dotenv_is_loaded_once_per_process(monkeypatch):
    loads = []
    monkeypatch.setattr(context_module, "load_dotenv", lambda **_: loads.append(1))
    context_module._load_dotenv.cache_clear()
    try:
        Context(), Context(tau=0.6), Context().with_overrides(max_depth=3)
    finally:
        context_module._load_dotenv.cache_clear()
    assert loads == [1]


def test_the_cli_takes_its_choices_from_context():
    ask = build_parser()._subparsers._group_actions[0].choices["ask"]
    offered = {a.dest: tuple(a.choices) for a in ask._actions if a.choices}
    assert offered == {name: Context.choices(name) for name in ("evidence_mode", "traversal", "local_model")}


def test_an_unknown_local_model_is_a_clear_error():
    with pytest.raises(ValueError, match=r"AMG_LOCAL_MODEL='7b' \(choose 0.5b, 1.5b, smollm2\)"):
        Context(local_model="7b")


def test_an_evidence_source_is_named_as_the_kind_of_evidence_it_finds():
    assert set(SOURCES) <= set(EVIDENCE_KINDS) and tuple(EvidenceFinder().sources) == SOURCES


def test_resources_are_shared_per_connection(tmp_path):
    a = resources_for(Context(data_dir=str(tmp_path / "a")))
    assert resources_for(Context(data_dir=str(tmp_path / "a"), tau=0.9, evidence_mode="offline")) is a
    assert resources_for(Context(data_dir=str(tmp_path / "b"))) is not a
