"""`amg kg import` checks every record before writing anything; `amg kg export` streams and never leaves half a file."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from amg.cli import main as cli
from amg.testing.graph_staging import clear
from amg.tools.kg.records import EntityRecord, EvidenceRecord, RelationRecord
from amg.tools.kg.store.neo4j_store import Neo4jStore
from amg.tools.kg.transfer import export_import
from amg.tools.kg.transfer.export_import import export_graph, import_graph

EV = EvidenceRecord(id="pmid:1", kind="pubmed", title="T", pmid="1")


def seeded(store):
    store.upsert(
        entities=[EntityRecord("Metformin", "drug", aliases=["Glucophage"])],
        evidence=[EV],
        relations=[RelationRecord("Metformin", "T2DM", type="treats", confidence=0.9, evidence_ids=["pmid:1"])],
        supports=[("Metformin", "pmid:1")],
    )


def snapshot(store) -> list[str]:
    return sorted(json.dumps(r, sort_keys=True) for r in store.export_records())


def relation(source="metformin", target="t2dm", **props) -> dict:
    return {
        "kind": "relation",
        "source": source,
        "target": target,
        "props": {"type": "treats", "confidence": 0.8, "evidence_ids": ["pmid:1"], **props},
    }


def entity(name, **props) -> dict:
    return {"kind": "entity", "key": name.lower(), "props": {"name": name, "type": "drug", **props}}


BAD_ROWS = {
    "confidence string": relation(confidence="0.9"),
    "confidence 5": relation(confidence=5.0),
    "confidence negative": relation(confidence=-0.7),
    "confidence huge": relation(confidence=1e308),
    "type outside vocabulary": relation(type="cures"),
    "type null": relation(type=None),
    "no evidence": relation(evidence_ids=[]),
    "unknown evidence": relation(evidence_ids=["pmid:404"]),
    "self-loop": relation(target="metformin"),
    "missing endpoint": relation(target="nowhere"),
    "null key": {"kind": "entity", "key": None, "props": {"name": None, "type": "drug"}},
    "1 MB name": entity("x" * 1_000_000),
    "unknown property": entity("Aspirin", colour="blue"),
    "entity type": entity("Aspirin", type="alien"),
    "map property": entity("Aspirin", sources=[{"a": 1}]),
    "bad history": relation(history=['{"at": 1}']),
    "unknown kind": {"kind": "vertex"},
    "not an object": [1, 2],
}


def write_jsonl(path, rows, extra_lines=()):
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in rows) + b"".join(extra_lines))
    return path


def test_every_bad_row_is_reported_by_line_and_nothing_is_written(store, tmp_path, monkeypatch):
    monkeypatch.setattr(export_import, "SHOWN_PROBLEMS", 100)
    seeded(store)
    before = snapshot(store)
    good = [entity("Aspirin"), relation("aspirin", "t2dm")]
    bad = list(BAD_ROWS.values())
    path = write_jsonl(
        tmp_path / "crafted.jsonl",
        good + bad,
        [b'{"kind": "entity", "confidence": NaN\n', b"\xff\xfe not utf-8\n", b"{not json\n"],
    )
    with pytest.raises(ValueError) as caught:
        import_graph(store, path)
    message = str(caught.value)
    assert "nothing was imported" in message
    lines = {line.split(":")[0].strip() for line in message.splitlines()[1:]}
    expected = {f"line {n}" for n in range(len(good) + 1, len(good) + len(bad) + 4)}
    assert lines == expected, message
    assert snapshot(store) == before, "a rejected file writes nothing"


@pytest.mark.parametrize("value", ["0.9", 5.0, -0.7, 1e308, float("nan"), True, None])
def test_confidence_must_be_a_real_number_in_unit_range(store, tmp_path, value):
    seeded(store)
    path = write_jsonl(tmp_path / "one.jsonl", [relation(confidence=value)])
    with pytest.raises(ValueError, match="line 1: relation: .*confidence"):
        import_graph(store, path)


def test_references_may_be_in_the_graph_and_keys_are_normalised(store, tmp_path):
    seeded(store)
    row = relation("Metformin", "Lactic acidosis", type="causes", confidence=0.4)
    path = write_jsonl(tmp_path / "more.jsonl", [entity("Lactic acidosis", type="disease"), row])
    path.write_text(path.read_text().replace('"lactic acidosis"', '"Lactic Acidosis"'))
    assert import_graph(store, path) == {"entity": 1, "relation": 1}
    found = {(n["other"], n["rel"]) for n in store.neighbors(["metformin"], 0.0, per_node=10)}
    assert ("lactic acidosis", "causes") in found and ("t2dm", "treats") in found


def test_key_must_match_the_name_and_duplicates_are_rejected(store, tmp_path):
    path = write_jsonl(tmp_path / "dup.jsonl", [{**entity("Aspirin"), "key": "metformin"}, entity("B"), entity("B")])
    with pytest.raises(ValueError) as caught:
        import_graph(store, path)
    assert "line 1: entity: key 'metformin' does not match name" in str(caught.value)
    assert "line 3: entity: duplicate of line 2" in str(caught.value)


def test_runtime_locks_are_dropped_and_online_defaults_filled(store, tmp_path):
    path = write_jsonl(
        tmp_path / "lock.jsonl", [entity("Aspirin", refresh_lock="2026-01-01T00:00:00Z", refresh_owner="x")]
    )
    import_graph(store, path)
    props = store.get_entity("aspirin")
    assert "refresh_lock" not in props and props["aliases"] == [] and props["refreshed_at"]


@pytest.mark.parametrize("suffix", [".jsonl", ".graphml"])
def test_what_the_audit_weakened_round_trips(store, tmp_path, suffix):
    seeded(store)
    store.weaken(
        [{"s": "metformin", "t": "t2dm", "type": "treats", "confidence": 0.9}], ["metformin"], "echoes the prompt"
    )
    before = snapshot(store)
    export_graph(store, tmp_path / f"kg{suffix}")
    clear(store)
    import_graph(store, tmp_path / f"kg{suffix}")
    assert snapshot(store) == before


GRAPHML = """<?xml version="1.0" encoding="utf-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
<key id="k0" for="node" attr.name="_kind" attr.type="string"><desc>string</desc></key>
<key id="k1" for="node" attr.name="name" attr.type="string"><desc>string</desc></key>
<key id="k2" for="node" attr.name="type" attr.type="string"><desc>string</desc></key>
<graph id="amg" edgedefault="directed">
<node id="entity:aspirin"><data key="k0">entity</data><data key="k1">Aspirin</data><data key="k2">drug</data></node>
{body}
</graph></graphml>
"""


@pytest.mark.parametrize(
    "body, problem",
    [
        (
            '<node id="entity:x"><data key="k0">entity</data><data key="k9">X</data></node>',
            "node 'entity:x': data with undeclared key 'k9'",
        ),
        ('<node id="entity:y"><data key="k1">Y</data></node>', "node 'entity:y': has no _kind data"),
        (
            '<edge source="entity:aspirin" target="entity:aspirin"><data key="k0">relation</data></edge>',
            "edge #1 ('entity:aspirin' -> 'entity:aspirin'): relation: missing type, confidence, evidence_ids",
        ),
    ],
)
def test_crafted_graphml_names_the_element(store, tmp_path, body, problem):
    path = tmp_path / "crafted.graphml"
    path.write_text(GRAPHML.format(body=body))
    with pytest.raises(ValueError) as caught:
        import_graph(store, path)
    assert problem in str(caught.value)
    assert store.get_entity("aspirin") is None


def test_graphml_round_trips_text_xml_cannot_carry(store, tmp_path):
    store.upsert(
        entities=[EntityRecord("Odd", "drug", description="bell \x07 and \x1b[31m")],
        evidence=[EvidenceRecord(id="wiki:Odd\x01", kind="wikipedia", snippet="a < b & c")],
    )
    before = snapshot(store)
    export_graph(store, tmp_path / "kg.graphml")
    clear(store)
    import_graph(store, tmp_path / "kg.graphml")
    assert snapshot(store) == before


def test_crafted_import_at_the_cli_is_one_error_not_a_traceback(store, tmp_path, capsys):
    path = write_jsonl(tmp_path / "bad.jsonl", [relation(confidence="0.9")], [b"\xff\n"])
    assert cli.main(["kg", "import", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("amg: error: ") and "Traceback" not in err and "line 2: not UTF-8 text" in err


@pytest.mark.parametrize("suffix", [".jsonl", ".graphml"])
def test_interrupted_export_leaves_no_half_file(store, tmp_path, monkeypatch, suffix):
    seeded(store)
    target = tmp_path / f"kg{suffix}"
    target.write_text("previous export")
    real = Neo4jStore.export_records

    def interrupted(s):
        for n, row in enumerate(real(s)):
            if n == 2:
                raise KeyboardInterrupt
            yield row

    monkeypatch.setattr(Neo4jStore, "export_records", interrupted)
    with pytest.raises(KeyboardInterrupt):
        export_graph(store, target)
    assert target.read_text() == "previous export" and [p.name for p in tmp_path.iterdir()] == [target.name]


SLOW_EXPORT = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
sys.path.insert(0, {root!r})
from amg.cli import main
from amg.tools.kg.store.neo4j_store import Neo4jStore
real = Neo4jStore.export_records
def slow(store):
    for row in real(store):
        time.sleep(0.5)
        yield row
Neo4jStore.export_records = slow
sys.exit(main.main(["kg", "export", {target!r}]))
"""


def test_ctrl_c_at_the_cli_is_one_line_and_no_file(store, tmp_path):
    seeded(store)
    target = tmp_path / "kg.jsonl"
    code = SLOW_EXPORT.format(root=str(Path(__file__).parents[2]), target=str(target))
    proc = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".kg.jsonl.*.partial")) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.strip().splitlines()[-1] == "amg: interrupted" and "Traceback" not in err, (
        f"exit {proc.returncode}; stderr: {err[-2000:]}"
    )
    assert list(tmp_path.iterdir()) == []
