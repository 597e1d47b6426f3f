"""Lossless export and import of the graph: JSON lines (.jsonl) or GraphML (.graphml).

Records: entity, alias, evidence, support, relation, seed_state. Import restores
properties exactly (timestamps and history included) rather than re-scoring them.
GraphML keys are per (property, type), so ints, floats, booleans, strings and lists
(JSON-encoded) come back as they went out.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Iterator

from tools.batching import chunked
from tools.kg.bolt_store import Neo4jGraphStore

PAGE = 2000
NS = "http://graphml.graphdrawing.org/xmlns"

_RESTORE = {
    "entity": "UNWIND $rows AS row MERGE (e:Entity {key: row.key}) SET e = row.props",
    "evidence": "UNWIND $rows AS row MERGE (v:Evidence {id: row.id}) SET v = row.props",
    "alias": """UNWIND $rows AS row MATCH (e:Entity {key: row.entity})
                MERGE (a:Alias {key: row.key}) SET a.name = row.name MERGE (a)-[:ALIAS_OF]->(e)""",
    "support": """UNWIND $rows AS row MATCH (e:Entity {key: row.entity}), (v:Evidence {id: row.evidence})
                  MERGE (e)-[:SUPPORTED_BY]->(v)""",
    "relation": """UNWIND $rows AS row MATCH (a:Entity {key: row.source}), (b:Entity {key: row.target})
                   MERGE (a)-[r:RELATES {type: row.props.type}]->(b) SET r = row.props""",
    "seed_state": "UNWIND $rows AS row MERGE (s:SeedState {origin: row.origin}) SET s.done = row.done",
}
ORDER = ("entity", "evidence", "alias", "support", "relation", "seed_state")


def records(store: Neo4jGraphStore) -> Iterator[dict]:
    """Every record of the graph, entities first, paged by key."""
    last = ""
    while True:
        page = store.read(
            """MATCH (e:Entity) WHERE e.key > $last WITH e ORDER BY e.key LIMIT $n
               RETURN e.key AS key, properties(e) AS props,
                      [(a:Alias)-[:ALIAS_OF]->(e) | {key: a.key, name: a.name}] AS aliases,
                      [(e)-[:SUPPORTED_BY]->(v:Evidence) | v.id] AS supports,
                      [(e)-[r:RELATES]->(b:Entity) | {target: b.key, props: properties(r)}] AS relations""",
            last=last, n=PAGE,
        )  # fmt: skip
        if not page:
            break
        for row in page:
            yield {"kind": "entity", "key": row["key"], "props": row["props"]}
            for alias in row["aliases"]:
                yield {"kind": "alias", "entity": row["key"], "key": alias["key"], "name": alias["name"]}
            for evidence_id in row["supports"]:
                yield {"kind": "support", "entity": row["key"], "evidence": evidence_id}
            for rel in row["relations"]:
                yield {"kind": "relation", "source": row["key"], "target": rel["target"], "props": rel["props"]}
        last = page[-1]["key"]
    last = ""
    while True:
        page = store.read(
            "MATCH (v:Evidence) WHERE v.id > $last WITH v ORDER BY v.id LIMIT $n RETURN v.id AS id, properties(v) AS props",
            last=last, n=PAGE,
        )  # fmt: skip
        if not page:
            break
        yield from ({"kind": "evidence", "id": row["id"], "props": row["props"]} for row in page)
        last = page[-1]["id"]
    for row in store.read("MATCH (s:SeedState) RETURN s.origin AS origin, s.done AS done"):
        yield {"kind": "seed_state", **row}


def export_graph(store: Neo4jGraphStore, path: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    if path.suffix == ".graphml":
        rows = list(records(store))
        _write_graphml(rows, path)
        for row in rows:
            counts[row["kind"]] = counts.get(row["kind"], 0) + 1
        return counts
    with path.open("w", encoding="utf-8") as out:
        for row in records(store):
            out.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
            counts[row["kind"]] = counts.get(row["kind"], 0) + 1
    return counts


def import_graph(store: Neo4jGraphStore, path: Path) -> dict[str, int]:
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file")
    if path.suffix == ".graphml":
        rows = _read_graphml(path)
    else:
        rows = []
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except ValueError:
                    raise ValueError(f"{path}:{number} is not a JSON record") from None
    grouped: dict[str, list[dict]] = {kind: [] for kind in ORDER}
    for row in rows:
        if row.get("kind") not in grouped:
            raise ValueError(f"{path}: unknown record kind {row.get('kind')!r}")
        grouped[row["kind"]].append(row)
    store.ensure_schema()
    for kind in ORDER:
        for batch in chunked(grouped[kind], PAGE):
            store.write(lambda tx, b=batch, q=_RESTORE[kind]: tx.run(q, rows=b).consume())
    return {kind: len(rows) for kind, rows in grouped.items() if rows}


# -- GraphML ------------------------------------------------------------------------------
_TYPES = {bool: "boolean", int: "long", float: "double", str: "string", list: "json"}


def _encode(value) -> tuple[str, str]:
    kind = _TYPES.get(type(value), "json")
    if kind == "json":
        return "json", json.dumps(value, ensure_ascii=False)
    return kind, str(value).lower() if kind == "boolean" else str(value)


def _decode(kind: str, text: str):
    return {"boolean": lambda t: t == "true", "long": int, "double": float, "string": str,
            "json": json.loads}[kind](text)  # fmt: skip


def _write_graphml(rows: list[dict], path: Path) -> None:
    root = ET.Element("graphml", xmlns=NS)
    keys: dict[tuple[str, str, str], str] = {}
    graph = ET.Element("graph", id="amg", edgedefault="directed")

    def element(tag: str, attrs: dict, data: dict) -> None:
        node = ET.SubElement(graph, tag, attrs)
        for name, value in data.items():
            kind, text = _encode(value)
            ident = keys.setdefault((tag, name, kind), f"k{len(keys)}")
            ET.SubElement(node, "data", key=ident).text = text

    for row in rows:
        kind = row["kind"]
        if kind in ("entity", "evidence"):
            element("node", {"id": f"{kind}:{row.get('key', row.get('id'))}"}, {"_kind": kind, **row["props"]})
        elif kind == "relation":
            element("edge", {"source": f"entity:{row['source']}", "target": f"entity:{row['target']}"},
                    {"_kind": "relation", **row["props"]})  # fmt: skip
        else:  # alias, support, seed_state: small records kept whole
            element("node", {"id": f"{kind}:{len(graph)}"}, {"_kind": kind, "_record": row})
    for (tag, name, kind), ident in keys.items():
        attr_type = "string" if kind == "json" else kind
        key = ET.SubElement(root, "key", {"id": ident, "for": tag, "attr.name": name, "attr.type": attr_type})
        ET.SubElement(key, "desc").text = kind
    root.append(graph)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def _read_graphml(path: Path) -> list[dict]:
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise ValueError(f"{path} is not valid GraphML ({exc})") from None
    q = f"{{{NS}}}"
    keys = {k.get("id"): (k.get("attr.name"), k.findtext(f"{q}desc")) for k in root.iter(f"{q}key")}
    rows = []
    for item in root.iter():
        if item.tag not in (f"{q}node", f"{q}edge"):
            continue
        props = {keys[d.get("key")][0]: _decode(keys[d.get("key")][1], d.text or "") for d in item.iter(f"{q}data")}
        kind = props.pop("_kind")
        if "_record" in props:
            rows.append(props["_record"])
        elif kind == "relation":
            rows.append({"kind": kind, "source": item.get("source").split(":", 1)[1],
                         "target": item.get("target").split(":", 1)[1], "props": props})  # fmt: skip
        else:
            ident = item.get("id").split(":", 1)[1]
            rows.append({"kind": kind, ("key" if kind == "entity" else "id"): ident, "props": props})
    return rows
