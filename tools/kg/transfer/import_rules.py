"""The rules an imported record must pass: those of online writes, checked before anything is written.

``check_record`` returns the cleaned record (keys normalised, online defaults filled in)
or raises ``Rejected`` saying what is wrong. Unknown properties are rejected; the runtime
locks of a refresher (``refresh_lock``, ``refresh_owner``) are dropped, never imported.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import fields
from datetime import datetime
from typing import Any, cast

from amg.tools.kg.records import (
    WITHDRAWN,
    EntityProps,
    EntityRecord,
    EvidenceProps,
    EvidenceRecord,
    RelationProps,
    RelationRecord,
    utc_now,
)
from amg.tools.kg.schema import ENTITY_TYPES, normalize_key, validate_name
from amg.tools.kg.store.rows import AliasRow, EntityRow, EvidenceRow, ExportRow, RelationRow, SeedStateRow, SupportRow

MAX_TEXT = 10_000  # descriptions, titles, snippets
MAX_SHORT = 2_000  # ids, origins, model names, urls
MAX_HISTORY = 1_000  # events per relation
DROPPED = ("refresh_lock", "refresh_owner")
STATUSES = ("active", "weakened")
Raw = dict[str, object]  # a record as read from the file, not yet checked
Check = Callable[[Any], Any]  # a value check: the value (cleaned) or Rejected; what it accepts is what it checks


class Rejected(ValueError):
    """One record breaks a rule; the message says which."""


# -- value checks: each returns the value or raises Rejected ------------------------------------
def real(low: float, high: float):
    def check(value):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise Rejected(f"{value!r:.40} is not a number")
        if not low <= value <= high:
            raise Rejected(f"{value!r} is outside [{low:g}, {high:g}]")
        return value

    return check


def text(limit: int):
    def check(value):
        if not isinstance(value, str):
            raise Rejected(f"{value!r:.40} is not text")
        if len(value) > limit:
            raise Rejected(f"is {len(value):,} characters; at most {limit:,} are allowed")
        return value

    return check


def optional(inner):
    return lambda value: None if value is None else inner(value)


def one_of(choices: tuple[str, ...]):
    def check(value):
        if value not in choices:
            raise Rejected(f"{value!r:.40} is not one of {', '.join(choices)}")
        return value

    return check


def items(inner, limit: int = 10_000):
    def check(value):
        if not isinstance(value, list) or len(value) > limit:
            raise Rejected(f"is not a list of at most {limit:,} items")
        return [inner(v) for v in value]

    return check


def timestamp(value):
    try:
        datetime.fromisoformat(text(40)(value).replace("Z", "+00:00"))
    except ValueError:
        raise Rejected(f"{value!r:.40} is not an ISO-8601 timestamp") from None
    return value


def count(value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Rejected(f"{value!r:.40} is not a count")
    return value


def name(value: object) -> str:
    try:
        return validate_name(value)
    except ValueError as exc:
        raise Rejected(str(exc)) from None


def history_event(value):
    try:
        event = json.loads(text(MAX_TEXT)(value))
    except ValueError:
        raise Rejected("history event is not JSON") from None
    if not isinstance(event, dict):
        raise Rejected("history event is not a JSON object")
    _props(event, HISTORY_EVENT, required=("at", "event", "confidence", "evidence_ids"), open_ended=True)
    return value


CONFIDENCE = real(0.0, 1.0)
RECORD_FIELDS = {f.name for f in fields(EvidenceRecord)}
ENTITY = {
    "key": text(MAX_SHORT),
    "name": name,
    "type": one_of(ENTITY_TYPES),
    "description": optional(text(MAX_TEXT)),
    "description_confidence": CONFIDENCE,
    "aliases": items(name),
    "sources": items(text(MAX_SHORT)),
    "created_at": timestamp,
    "updated_at": timestamp,
    "refreshed_at": timestamp,
    "hits": count,
    "description_status": one_of(STATUSES),
    "description_note": text(MAX_SHORT),  # set by `amg kg audit --fix`
}
EVIDENCE = {
    "id": text(MAX_SHORT),
    "kind": text(20),
    "title": text(MAX_TEXT),
    "snippet": text(MAX_TEXT),
    "year": optional(count),
    "journal": optional(text(MAX_SHORT)),
    "pmid": optional(text(MAX_SHORT)),
    "doi": optional(text(MAX_SHORT)),
    "url": optional(text(MAX_SHORT)),
    "release": optional(text(MAX_SHORT)),
    "retrieved_at": timestamp,
    # a paper PubMed withdrew, and the refresh agent's queue of revised papers (graphs/literature_sync.py)
    "status": optional(one_of(WITHDRAWN)),
    "status_note": text(MAX_SHORT),
    "status_at": timestamp,
    "revised_at": timestamp,
    "reread_at": timestamp,
    "reread_done_at": timestamp,
}
RELATION = {
    "type": text(40),
    "confidence": CONFIDENCE,
    "score_raw": optional(real(0.0, 10.0)),
    "description": text(MAX_TEXT),
    "evidence_ids": items(text(MAX_SHORT)),
    "origin": text(MAX_SHORT),
    "model": text(MAX_SHORT),
    "status": one_of(STATUSES),
    "created_at": timestamp,
    "updated_at": timestamp,
    "history": items(history_event, MAX_HISTORY),
}
HISTORY_EVENT = {
    "at": timestamp,
    "event": text(40),
    "confidence": CONFIDENCE,
    "previous": optional(CONFIDENCE),
    "evidence_ids": items(text(MAX_SHORT)),
}


def _props(
    props: object, spec: Mapping[str, Check], *, required: tuple[str, ...], open_ended: bool = False
) -> dict[str, Any]:
    """``props`` checked against ``spec``; unknown names rejected unless ``open_ended``. Each value is what its check
    returns (hence Any: the checks say the type, at run time)."""
    if not isinstance(props, dict):
        raise Rejected("props is not an object")
    props = {k: v for k, v in props.items() if k not in DROPPED}
    unknown = sorted(set(props) - set(spec))
    if unknown and not open_ended:
        raise Rejected(f"unknown properties {', '.join(map(repr, unknown))[:200]}")
    missing = [k for k in required if props.get(k) is None]
    if missing:
        raise Rejected(f"missing {', '.join(missing)}")
    for key, check in spec.items():
        if key in props:
            try:
                props[key] = check(props[key])
            except Rejected as exc:
                raise Rejected(f"{key} {exc}") from None
    return props


def _entity(row: Raw) -> EntityRow:
    props = _props(row.get("props"), ENTITY, required=("name", "type"))
    record = EntityRecord(props["name"], props["type"], aliases=props.get("aliases", []))
    if normalize_key(str(row.get("key") or "")) != record.key:
        raise Rejected(
            f"key {row.get('key')!r:.60} does not match name {record.name!r:.60} (expected {record.key!r:.60})"
        )
    now = utc_now()
    defaults = {
        "aliases": [],
        "sources": [],
        "description_confidence": 0.0,
        "created_at": now,
        "updated_at": now,
        "refreshed_at": now,
    }
    checked = cast(EntityProps, {**defaults, **props, "key": record.key})  # each property as ENTITY checks it
    return EntityRow(kind="entity", key=record.key, props=checked)


def _evidence(row: Raw) -> EvidenceRow:
    props = _props(row.get("props"), EVIDENCE, required=("id", "kind"))
    ident = text(MAX_SHORT)(row.get("id"))
    if props["id"] != ident:
        raise Rejected(f"id {ident!r:.60} differs from props.id {props['id']!r:.60}")
    EvidenceRecord(**{k: v for k, v in props.items() if k in RECORD_FIELDS})  # kind from the vocabulary, non-empty id
    checked = cast(EvidenceProps, {"title": "", "snippet": "", "retrieved_at": utc_now(), **props})  # as EVIDENCE
    return EvidenceRow(kind="evidence", id=ident, props=checked)


def _relation(row: Raw) -> RelationRow:
    props = _props(row.get("props"), RELATION, required=("type", "confidence", "evidence_ids"))
    record = RelationRecord(
        name(row.get("source")),
        name(row.get("target")),
        type=props["type"],
        confidence=props["confidence"],
        evidence_ids=props["evidence_ids"],
    )
    now = utc_now()
    defaults = {
        "description": "",
        "origin": "import",
        "model": "",
        "status": "active",
        "created_at": now,
        "updated_at": now,
        "history": [],
    }
    checked = cast(RelationProps, {**defaults, **props})  # each property as RELATION checks it
    return RelationRow(kind="relation", source=record.source_key, target=record.target_key, props=checked)


def _alias(row: Raw) -> AliasRow:
    alias = name(row.get("name"))
    if normalize_key(str(row.get("key") or "")) != normalize_key(alias):
        raise Rejected(f"alias key {row.get('key')!r:.60} does not match its name {alias!r:.60}")
    return AliasRow(kind="alias", entity=normalize_key(name(row.get("entity"))), key=normalize_key(alias), name=alias)


def _support(row: Raw) -> SupportRow:
    return SupportRow(
        kind="support", entity=normalize_key(name(row.get("entity"))), evidence=text(MAX_SHORT)(row.get("evidence"))
    )


def _seed_state(row: Raw) -> SeedStateRow:
    origin = text(MAX_SHORT)(row.get("origin"))
    return SeedStateRow(
        kind="seed_state",
        origin=origin,
        done=items(count, 1_000_000)(row.get("done") or []),
        complete=bool(row.get("complete")),
    )


CHECKS: dict[str, Callable[[Raw], ExportRow]] = {
    "entity": _entity,
    "evidence": _evidence,
    "alias": _alias,
    "support": _support,
    "relation": _relation,
    "seed_state": _seed_state,
}


def check_record(row: object) -> ExportRow:
    """The cleaned record, or Rejected with the reason."""
    if not isinstance(row, dict):
        raise Rejected("not a JSON object")
    row = cast(Raw, row)  # JSON: its keys are text
    kind = row.get("kind")
    check = CHECKS.get(kind) if isinstance(kind, str) else None  # a list or an object cannot be looked up
    if check is None:
        raise Rejected(f"unknown record kind {row.get('kind')!r:.40}")
    try:
        return check(row)
    except Rejected:
        raise
    except (ValueError, TypeError) as exc:  # the records' own rules (names, types, evidence, self-loops)
        raise Rejected(str(exc)) from None


def references(row: ExportRow) -> list[tuple[str, str]]:
    """(label, id) of what a cleaned record needs to exist: entities by key, evidence by id."""
    if row["kind"] == "relation":
        return [("entity", row["source"]), ("entity", row["target"])] + [
            ("evidence", e) for e in row["props"]["evidence_ids"]
        ]
    if row["kind"] == "alias":
        return [("entity", row["entity"])]
    if row["kind"] == "support":
        return [("entity", row["entity"]), ("evidence", row["evidence"])]
    return []


def identity(row: ExportRow) -> tuple[str, ...] | None:
    """What two records must not share (duplicates), or None."""
    if row["kind"] == "entity":
        return row["kind"], row["key"]
    if row["kind"] == "evidence":
        return row["kind"], row["id"]
    if row["kind"] == "relation":
        return row["kind"], row["source"], row["target"], row["props"]["type"]
    if row["kind"] == "alias":  # one alias may name several entities
        return row["kind"], row["key"], row["entity"]
    if row["kind"] == "seed_state":
        return row["kind"], row["origin"]
    return None
