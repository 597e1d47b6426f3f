"""Record files read into ``PatientRecord``s: GA4GH phenopackets, DDXPlus patients, and AMG's own JSON lines.

A file is JSON lines (optionally gzipped), or one JSON object (a phenopacket per file). Each object's format is
told by its fields: a phenopacket has ``phenotypicFeatures`` or ``subject`` (v2), or ``hpo_present`` (the flattened
rows of phenopacket-store cases the benchmarks use); a DDXPlus patient has ``evidence_codes`` (read with the dataset's
evidence dictionary, found beside the file); AMG's own has ``present`` / ``absent`` / ``findings`` (docs/records.md).
A record that cannot be read whole is a ``RecordProblem`` with its file, line and reason; the others are read.
"""

from __future__ import annotations

import gzip
import io
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from amg.tools.kg.schema import normalize_key
from amg.tools.records.model import (
    MAX_FINDINGS,
    MAX_ID_CHARS,
    MAX_NOTE_CHARS,
    Diagnosis,
    Finding,
    PatientRecord,
    RecordProblem,
    plain_sex,
)

MAX_LINE_BYTES = 2_000_000  # a line longer than this is refused unread
MAX_DEPTH = 32  # JSON nested deeper than any record format needs is refused
HPO_ID = re.compile(r"HP:\d{7}")
DISEASE_ID = re.compile(r"(OMIM|MONDO|ORPHA|Orphanet|DOID|MESH):\s*\w+", re.IGNORECASE)
ICD10 = re.compile(r"(?:ICD-?10(?:-CM)?[: ]\s*)?([A-TV-Z]\d{2}(?:\.\d{1,4})?)", re.IGNORECASE)

Read = PatientRecord | RecordProblem


class Problem(ValueError):
    """A record that cannot be read, with the reason to show."""


class FindingNames:
    """How a record's findings become graph keys: HPO ids and labels through the HPO lexicon, other text as the
    record's own node. ``recognise``: the phenotype recogniser (mentions with ``key`` and ``negated``) for notes."""

    def __init__(self, lexicon: Any, recognise: Callable[[str], list[Any]] | None = None):
        self.lexicon = lexicon
        self.recognise = recognise

    def by_id(self, term_id: str, label: str = "") -> Finding:
        term = self.lexicon.terms.get(term_id)
        if term is not None:
            return Finding(key=term.key, label=term.name, code=term_id)
        if not label:
            raise Problem(f"unknown HPO term {term_id} (not in the installed HPO, and no label given)")
        return Finding(key=normalize_key(label), label=label, code=term_id)  # newer than the installed HPO

    def by_text(self, text: str) -> Finding:
        """A finding written as text: the HPO term it names whole, else its own node."""
        text = " ".join(text.split())
        if HPO_ID.fullmatch(text):
            return self.by_id(text)
        term_id = self.lexicon.by_key.get(normalize_key(text))
        if term_id is None and self.recognise is not None:
            named = {m.key for m in self.recognise(text) if not m.negated}
            if len(named) == 1:
                term_id = self.lexicon.by_key.get(named.pop())
        if term_id is not None:
            term = self.lexicon.terms[term_id]
            return Finding(key=term.key, label=term.name, code=term_id)
        return Finding(key=normalize_key(text), label=text)

    def in_note(self, note: str) -> tuple[list[Finding], list[Finding]]:
        """(present, absent) HPO findings the phenotype recogniser reads in a free-text note."""
        if not note or self.recognise is None:
            return [], []
        present: list[Finding] = []
        absent: list[Finding] = []
        for mention in self.recognise(note):
            term_id = self.lexicon.by_key.get(mention.key)
            if term_id is None:
                continue
            found = Finding(key=mention.key, label=self.lexicon.terms[term_id].name, code=term_id)
            (absent if mention.negated else present).append(found)
        return present, absent


def read_records(path: Path, names: FindingNames, ddxplus: Any | None = None) -> Iterator[Read]:
    """Every record of ``path``, in order, each read or a problem. ``ddxplus``: the DDXPlus dictionary reader
    (tools/records/ddxplus.py) for DDXPlus rows; without it they are refused."""
    shown = str(path)
    try:
        raw = _open(path)
    except OSError as exc:
        yield RecordProblem(file=shown, line=0, reason=f"cannot be read ({exc.strerror or exc})")
        return
    except Problem as exc:
        yield RecordProblem(file=shown, line=0, reason=str(exc))
        return
    with raw:
        if b"\x00" in raw.peek(4096)[:4096]:
            yield RecordProblem(file=shown, line=0, reason="not a text file (JSON or JSON lines)")
            return
        numbered = ((n, line) for n, line in enumerate(_lines(raw), start=1) if line.strip())
        start, first = next(numbered, (0, b""))
        if not first:
            yield RecordProblem(file=shown, line=0, reason="the file is empty")
            return
        if first.lstrip().startswith(b"{") and not _whole_json(first):  # one object over many lines: one record
            whole = first + b"\n" + b"\n".join(line for _, line in numbered)
            yield _one(whole, shown, number=start, names=names, ddxplus=ddxplus)
            return
        yield _one(first, shown, number=start, names=names, ddxplus=ddxplus)
        for number, line in numbered:
            yield _one(line, shown, number=number, names=names, ddxplus=ddxplus)


def _whole_json(line: bytes) -> bool:
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return False
    return True


def _open(path: Path) -> io.BufferedReader[Any]:
    if not path.is_file():
        raise Problem("no such file" if not path.exists() else "not a file")
    handle = io.BufferedReader(io.FileIO(path, "rb"), buffer_size=1 << 16)  # closed by the caller's with
    if handle.peek(2)[:2] == b"\x1f\x8b":
        handle.close()
        return io.BufferedReader(gzip.open(path, "rb"), buffer_size=1 << 16)
    return handle


def _lines(raw) -> Iterator[bytes]:
    """The file's lines without their ends; a line over the limit comes out cut at it (and is refused)."""
    while line := raw.readline(MAX_LINE_BYTES + 1):
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while (rest := raw.readline(1 << 20)) and not rest.endswith(b"\n"):
                pass  # the rest of an over-long line is skipped
        yield line.rstrip(b"\r\n")


def _one(line: bytes, file: str, *, number: int, names: FindingNames, ddxplus: Any | None) -> Read:
    try:
        if len(line) > MAX_LINE_BYTES:
            raise Problem(f"the record is over {MAX_LINE_BYTES:,} bytes")
        try:
            data = json.loads(line)
        except RecursionError:
            raise Problem(f"the JSON is nested deeper than {MAX_DEPTH} levels") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise Problem(f"not valid JSON ({exc.msg if isinstance(exc, json.JSONDecodeError) else exc})") from None
        if not isinstance(data, dict):
            raise Problem(f"a record is a JSON object, not {type(data).__name__}")
        if _depth(data) > MAX_DEPTH:
            raise Problem(f"the JSON is nested deeper than {MAX_DEPTH} levels")
        record = _read(data, names, ddxplus)
        _check(record)
        return record
    except Problem as exc:
        return RecordProblem(file=file, line=number, reason=str(exc))


def _depth(value: object) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if level > MAX_DEPTH:
            break
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, level + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def _read(data: dict, names: FindingNames, ddxplus: Any | None) -> PatientRecord:
    if "evidence_codes" in data:
        if ddxplus is None:
            raise Problem("a DDXPlus patient, but no DDXPlus evidence dictionary was found beside the file")
        return ddxplus.record(data)
    if "phenotypicFeatures" in data or "subject" in data:
        return phenopacket(data, names)
    if "hpo_present" in data:
        return phenopacket_row(data, names)
    if {"present", "absent", "findings"} & data.keys():
        return own_record(data, names)
    raise Problem(
        "not a record format AMG reads (a phenopacket, a DDXPlus patient, or AMG's own JSON lines: docs/records.md)"
    )


def _check(record: PatientRecord) -> None:
    if not record.id or len(record.id) > MAX_ID_CHARS or not record.id.isprintable():
        raise Problem(f"the record's id must be printable text of 1 to {MAX_ID_CHARS} characters")
    if len(record.note) > MAX_NOTE_CHARS:
        raise Problem(f"the note has {len(record.note):,} characters; at most {MAX_NOTE_CHARS:,} are read")
    if len(record.present) + len(record.absent) > MAX_FINDINGS:
        raise Problem(f"{len(record.present) + len(record.absent):,} findings; at most {MAX_FINDINGS} per record")


def record_id(data: dict, *fields: str) -> str:
    """The record's id from the first of ``fields`` it has, as text; a Problem when none is usable."""
    for name in fields:
        value = data.get(name)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            return str(value).strip()
    raise Problem("the record has no id")


def _text(value: object, what: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise Problem(f"{what} must be text, not {type(value).__name__}")
    return str(value)


def _list(value: object, what: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise Problem(f"{what} must be a list, not {type(value).__name__}")
    return value


def phenopacket(data: dict, names: FindingNames) -> PatientRecord:
    """A GA4GH phenopacket (v2): subject, phenotypicFeatures (``excluded`` ones absent), diseases and
    interpretations' diagnoses."""
    subject = data.get("subject") or {}
    if not isinstance(subject, dict):
        raise Problem("subject must be an object")
    present: list[Finding] = []
    absent: list[Finding] = []
    for feature in _list(data.get("phenotypicFeatures"), "phenotypicFeatures"):
        term = feature.get("type") if isinstance(feature, dict) else None
        if not isinstance(term, dict) or not isinstance(term.get("id"), str):
            raise Problem("each phenotypic feature needs a type with an id")
        found = _term(term["id"], _text(term.get("label"), "a feature's label"), names)
        (absent if feature.get("excluded") is True else present).append(found)
    diagnoses = []
    for disease in _list(data.get("diseases"), "diseases"):
        term = disease.get("term") if isinstance(disease, dict) else None
        if isinstance(term, dict) and not disease.get("excluded"):
            diagnoses.append(_disease(term))
    for interpretation in _list(data.get("interpretations"), "interpretations"):
        diagnosis = interpretation.get("diagnosis") if isinstance(interpretation, dict) else None
        term = diagnosis.get("disease") if isinstance(diagnosis, dict) else None
        if isinstance(term, dict):
            diagnoses.append(_disease(term))
    age = subject.get("timeAtLastEncounter") or {}
    return PatientRecord(
        id=record_id(data, "id") if data.get("id") else record_id(subject, "id"),
        source="phenopacket",
        age=_text((age.get("age") or {}).get("iso8601duration") if isinstance(age, dict) else None, "age"),
        sex=plain_sex(subject.get("sex")),
        present=tuple(present),
        absent=tuple(absent),
        diagnoses=tuple(dict.fromkeys(diagnoses)),
    )


def phenopacket_row(data: dict, names: FindingNames) -> PatientRecord:
    """A phenopacket-store case flattened to one row: ``hpo_present`` / ``hpo_excluded`` as [id, label] pairs,
    ``disease_id`` and ``disease_label``."""

    def pairs(field: str) -> list[Finding]:
        found = []
        for pair in _list(data.get(field), field):
            if not (isinstance(pair, list) and pair and isinstance(pair[0], str)):
                raise Problem(f"{field} holds [HPO id, label] pairs")
            found.append(_term(pair[0], _text(pair[1] if len(pair) > 1 else "", "a label"), names))
        return found

    disease = _text(data.get("disease_id"), "disease_id")
    label = _text(data.get("disease_label"), "disease_label")
    return PatientRecord(
        id=record_id(data, "id"),
        source="phenopacket",
        age=_text(data.get("age_text") or data.get("age"), "age"),
        sex=plain_sex(data.get("sex")),
        present=tuple(pairs("hpo_present")),
        absent=tuple(pairs("hpo_excluded")),
        diagnoses=(Diagnosis(name=label or disease, ids=(disease,) if disease else ()),) if disease or label else (),
        extra={k: _text(data.get(k), k) for k in ("pmid",) if data.get(k)},
    )


def own_record(data: dict, names: FindingNames) -> PatientRecord:
    """AMG's own JSON lines (docs/records.md): id, age, sex, ``present`` and ``absent`` findings (HPO ids or text;
    or ``findings`` as objects {"name" or "id", "present": true|false}), ``diagnosis`` (text, ids, or a list of
    them), ``note`` (free text, read for findings by the phenotype recogniser)."""
    present = [_finding(f, names, "present") for f in _list(data.get("present"), "present")]
    absent = [_finding(f, names, "absent") for f in _list(data.get("absent"), "absent")]
    for item in _list(data.get("findings"), "findings"):
        if not isinstance(item, dict):
            raise Problem("each of findings is an object with a name or an id, and present: true or false")
        found = _finding(item.get("id") or item.get("name"), names, "a finding")
        (absent if item.get("present") is False else present).append(found)
    note = _text(data.get("note"), "note")
    if len(note) > MAX_NOTE_CHARS:
        raise Problem(f"the note has {len(note):,} characters; at most {MAX_NOTE_CHARS:,} are read")
    said, denied = names.in_note(note)
    given = {f.key for f in present + absent}
    present += [f for f in said if f.key not in given]
    absent += [f for f in denied if f.key not in given]
    diagnoses = [_diagnosis(d) for d in _diagnosis_items(data.get("diagnosis", data.get("diagnoses")))]
    return PatientRecord(
        id=record_id(data, "id"),
        source="amg",
        age=_text(data.get("age"), "age"),
        sex=plain_sex(data.get("sex")),
        present=tuple(dict.fromkeys(present)),
        absent=tuple(dict.fromkeys(absent)),
        diagnoses=tuple(dict.fromkeys(diagnoses)),
        note=note,
    )


def _finding(value: object, names: FindingNames, what: str) -> Finding:
    if isinstance(value, dict):
        value = value.get("id") or value.get("name")
    if not isinstance(value, str) or not value.strip():
        raise Problem(f"{what} findings are HPO ids or text")
    return names.by_text(value)


def _term(term_id: str, label: str, names: FindingNames) -> Finding:
    if not HPO_ID.fullmatch(term_id):
        raise Problem(f"unknown code {term_id!r}: phenotypic features are HPO terms (HP: and seven digits)")
    return names.by_id(term_id, label)


def _disease(term: dict) -> Diagnosis:
    term_id, label = _text(term.get("id"), "a disease id"), _text(term.get("label"), "a disease label")
    if not term_id and not label:
        raise Problem("a disease needs an id or a label")
    return Diagnosis(name=label or term_id, ids=(term_id,) if term_id else ())


def _diagnosis_items(value: object) -> list:
    return value if isinstance(value, list) else [] if value is None else [value]


def _diagnosis(value: object) -> Diagnosis:
    """A diagnosis written as text ("Pneumonia", "OMIM:154700", "ICD-10 J18.9") or {"name", "id"/"ids"}."""
    if isinstance(value, dict):
        ids = value.get("ids") or ([value["id"]] if value.get("id") else [])
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise Problem("a diagnosis's ids are a list of text")
        name = _text(value.get("name"), "a diagnosis's name")
        if not name and not ids:
            raise Problem("a diagnosis needs a name or an id")
        return Diagnosis(name=name or ids[0], ids=tuple(disease_id(i) for i in ids))
    text = _text(value, "diagnosis").strip()
    if not text:
        raise Problem("an empty diagnosis")
    is_id = DISEASE_ID.fullmatch(text) or re.fullmatch(r"ICD-?10(?:-CM)?[: ].+", text, re.IGNORECASE)
    return Diagnosis(name=text, ids=(disease_id(text),)) if is_id else Diagnosis(name=text)


def disease_id(text: str) -> str:
    """An id as the graph's aliases write it: ``OMIM:154700``, ``ORPHA:558``, ``ICD-10-CM J18.9``."""
    text = text.strip()
    if match := re.fullmatch(r"ICD-?10(?:-CM)?[: ]\s*(.+)", text, re.IGNORECASE):
        return f"ICD-10-CM {match.group(1).upper()}"
    prefix, _, rest = text.partition(":")
    prefix = {"orphanet": "ORPHA"}.get(prefix.lower(), prefix.upper())
    return f"{prefix}:{rest.strip()}" if rest else text
