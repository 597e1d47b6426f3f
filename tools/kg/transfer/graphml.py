"""GraphML for export/import, streamed both ways.

Keys are per (element, property, type), so ints, floats, booleans, strings and lists
(JSON-encoded) come back as they went out. Text XML cannot carry (control characters)
is written JSON-encoded with ASCII escapes. The reader yields one record per element, or
a ``Rejected`` saying what is wrong with that element; a file that is not XML raises.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO
from xml.sax.saxutils import escape, quoteattr

from amg.tools.kg.store.rows import ExportRow
from amg.tools.kg.transfer.import_rules import Rejected

NS = "http://graphml.graphdrawing.org/xmlns"
_TYPES = {bool: "boolean", int: "long", float: "double", str: "string"}
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_DECODE: dict[str, Callable[[str], object]] = {
    "boolean": lambda t: t == "true",
    "long": int,
    "double": float,
    "string": str,
    "json": json.loads,
}


def _encode(value) -> tuple[str, str]:
    kind = _TYPES.get(type(value), "json")
    if kind == "string" and _NOT_XML.search(value):
        kind = "json"
    if kind == "json":
        return kind, json.dumps(value, ensure_ascii=True)
    return kind, str(value).lower() if kind == "boolean" else str(value)


def _element(row: ExportRow, number: int, keys: dict[tuple[str, str, str], str]) -> str:
    kind = row["kind"]
    data: dict[str, object]
    if row["kind"] == "entity" or row["kind"] == "evidence":
        ident = row["key"] if row["kind"] == "entity" else row["id"]
        tag, data = "node", {"_kind": kind, **row["props"]}
        attrs = {"id": f"{kind}:{ident}"}
        if _NOT_XML.search(ident):
            attrs, data["_ident"] = {"id": f"{kind}#{number}"}, ident
    elif row["kind"] == "relation":
        tag, data = "edge", {"_kind": kind, **row["props"]}
        attrs = {"id": f"r{number}", "source": f"entity:{row['source']}", "target": f"entity:{row['target']}"}
    else:  # alias, support, seed_state: small records kept whole
        tag, data, attrs = "node", {"_kind": kind, "_record": row}, {"id": f"{kind}:{number}"}
    parts = [f"<{tag} " + " ".join(f"{k}={quoteattr(v)}" for k, v in attrs.items()) + ">"]
    for name, value in data.items():
        type_name, text = _encode(value)
        ident = keys.setdefault((tag, name, type_name), f"k{len(keys)}")
        parts.append(f'<data key="{ident}">{escape(text)}</data>')
    return "".join(parts) + f"</{tag}>\n"


def write_graphml(rows: Iterable[ExportRow], out: IO[str]) -> None:
    """Stream ``rows`` to ``out``; keys are declared first, so the body is spooled to a temporary file."""
    keys: dict[tuple[str, str, str], str] = {}
    with tempfile.TemporaryFile("w+", encoding="utf-8") as body:
        for number, row in enumerate(rows):
            body.write(_element(row, number, keys))
        out.write(f'<?xml version="1.0" encoding="utf-8"?>\n<graphml xmlns="{NS}">\n')
        for (tag, name, kind), ident in keys.items():
            attr_type = "string" if kind == "json" else kind
            out.write(
                f'<key id="{ident}" for="{tag}" attr.name={quoteattr(name)} attr.type="{attr_type}">'
                f"<desc>{kind}</desc></key>\n"
            )
        out.write('<graph id="amg" edgedefault="directed">\n')
        body.seek(0)
        shutil.copyfileobj(body, out)
        out.write("</graph>\n</graphml>\n")


def read_graphml(path: Path) -> Iterator[tuple[str, object]]:
    """(element locator, record as read (not yet checked) or Rejected) per node and edge; ValueError if the file is
    not XML."""
    q = f"{{{NS}}}"
    keys: dict[str, tuple[str, str]] = {}
    edges = 0
    try:
        for _, item in ET.iterparse(path, events=("end",)):
            if item.tag == f"{q}key":
                kind = item.findtext(f"{q}desc") or item.get("attr.type") or "string"
                keys[item.get("id") or ""] = (item.get("attr.name") or "", kind)
            elif item.tag in (f"{q}node", f"{q}edge"):
                edges += item.tag == f"{q}edge"
                locator = _locator(item, edges)
                try:
                    yield locator, _record(item, keys, q)
                except Rejected as exc:
                    yield locator, exc
                item.clear()
    except ET.ParseError as exc:
        raise ValueError(f"{path} is not valid GraphML ({exc})") from None


def _locator(item: ET.Element, edges: int) -> str:
    if item.get("id"):
        return f"{item.tag.split('}')[-1]} {item.get('id')!r:.80}"
    return f"edge #{edges} ({item.get('source')!r:.40} -> {item.get('target')!r:.40})"


def _record(item: ET.Element, keys: dict[str, tuple[str, str]], q: str) -> object:
    """The record an element holds, as read (import_rules.check_record checks it)."""
    props: dict[str, object] = {}
    for data in item.iter(f"{q}data"):
        key = data.get("key")
        if key is None or key not in keys:
            raise Rejected(f"data with undeclared key {key!r:.40}")
        name, value_type = keys[key]
        if value_type not in _DECODE:
            raise Rejected(f"key {key!r} has unknown type {value_type!r:.40}")
        try:
            props[name] = _DECODE[value_type](data.text or "")
        except (ValueError, RecursionError):
            raise Rejected(f"{name!r:.40} is not a valid {value_type}") from None
    kind = props.pop("_kind", None)
    if kind is None:
        raise Rejected("has no _kind data (not written by amg kg export)")
    if "_record" in props:
        return props["_record"]
    if kind == "relation":
        ends = [_ident(item.get(end), "entity") for end in ("source", "target")]
        return {"kind": kind, "source": ends[0], "target": ends[1], "props": props}
    ident = props.pop("_ident", None) or _ident(item.get("id"), kind)
    return {"kind": kind, ("key" if kind == "entity" else "id"): ident, "props": props}


def _ident(attr: str | None, kind: object) -> str:
    prefix, sep, ident = (attr or "").partition(":")
    if not sep or prefix != kind:
        raise Rejected(f"id {attr!r:.60} is not of the form {kind}:IDENTIFIER")
    return ident
