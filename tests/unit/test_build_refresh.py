"""Build and refresh agents: scripted LLM, recorded PubMed, real local Bolt server."""

from __future__ import annotations

import pytest

from amg.cli.build import parse_every
from amg.graphs import build_graph


def test_topic_file_reading(tmp_path):
    path = tmp_path / "topics.txt"
    path.write_text("Metformin\n\n# comment\n  metformin  \nAspirin\n")
    assert build_graph.read_topics(path) == ["Metformin", "metformin", "Aspirin"]
    path.write_bytes(b"\x00\x01binary")
    with pytest.raises(ValueError, match="binary"):
        build_graph.read_topics(path)


def test_every_parsing():
    assert parse_every("6h") == 21600 and parse_every("30m") == 1800
    with pytest.raises(ValueError, match="duration"):
        parse_every("often")
