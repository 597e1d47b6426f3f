"""The DDXPlus dictionary (Fansi Tchango et al. 2022): its evidences, pathologies and their ICD-10 hierarchy, and its
patients, as typed records.

An evidence is a question the dataset asks: binary (``B``: present or not), categorical (``C``: one value, a named one
or a number on a 0-10 scale) or multiple choice (``M``: values, such as the places a pain is felt). A patient's codes
are ``E_91`` (a binary evidence present), ``E_55_@_V_89`` (value V_89 of E_55) or ``E_56_@_5`` (5 on E_56's scale).
A follow-up evidence names the one it follows in ``parent`` (E_55, where the pain is, follows E_53, a pain).
The files sit together: ``ddxplus-evidences.json``, ``ddxplus-conditions.json``, ``ddxplus-hierarchy.json`` and the
patients' ``ddxplus-*.jsonl`` (../shared/data/patients/README.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

VALUE_JOIN = "_@_"  # E_55_@_V_89: evidence, then value
BINARY, CATEGORICAL, MULTIPLE = "B", "C", "M"
NOWHERE = "nowhere"  # the value of a place question that names no place
EVIDENCES, CONDITIONS, HIERARCHY = "ddxplus-evidences.json", "ddxplus-conditions.json", "ddxplus-hierarchy.json"


@dataclass(frozen=True)
class Value:
    code: str  # "V_89", or the number of a scale as text ("5")
    name: str  # "forehead", "cheek(R)"; the number for a scale


@dataclass(frozen=True)
class Evidence:
    code: str
    question: str
    kind: str  # B, C or M
    values: tuple[Value, ...]
    default: str  # the value (code) meaning "not asked" or "nothing", "" for a binary evidence
    antecedent: bool  # a history item rather than a symptom
    parent: str  # the evidence it follows up (itself when it is asked on its own)

    @property
    def scale(self) -> bool:
        """A 0-10 scale: its values are numbers with no names."""
        return self.kind == CATEGORICAL and bool(self.values) and all(v.name.isdigit() for v in self.values)

    @property
    def yes_no(self) -> bool:
        """A categorical evidence whose only values are N and Y (E_131, do the lesions peel off)."""
        return {v.name for v in self.values} == {"N", "Y"}

    def value(self, code: str) -> Value | None:
        return next((v for v in self.values if v.code == code), None)

    def named(self, name: str) -> Value | None:
        return next((v for v in self.values if v.name == name), None)


@dataclass(frozen=True)
class Condition:
    name: str
    icd10: str  # as the hierarchy uses it (normalised WHO ICD-10)
    severity: int
    chapter: str  # L1, ICD-10 chapter range ("J00-J99")
    block: str  # L2, ICD-10 block range ("J30-J39")
    symptoms: tuple[str, ...]  # evidence codes
    antecedents: tuple[str, ...]


@dataclass(frozen=True)
class Group:
    code: str  # an ICD-10 range: a chapter ("J00-J99") or a block ("J30-J39")
    name: str


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: a reader caches its work per dictionary
class Dictionary:
    evidences: dict[str, Evidence]
    conditions: dict[str, Condition]  # L3, by pathology name
    chapters: dict[str, Group]  # L1
    blocks: dict[str, Group]  # L2
    folder: Path

    def level(self, pathology: str, depth: int) -> str:
        """A pathology's label at depth 1 (chapter), 2 (block) or 3 (itself)."""
        condition = self.conditions[pathology]
        return {1: condition.chapter, 2: condition.block, 3: pathology}[depth]


@dataclass(frozen=True)
class Patient:
    id: str
    age: int
    sex: str  # F or M
    pathology: str
    chapter: str
    block: str
    initial_evidence: str
    codes: tuple[str, ...]  # evidence codes, with their values
    text: str  # the case as the dataset's questions and answers


def split_code(code: str) -> tuple[str, str]:
    """("E_55", "V_89") of "E_55_@_V_89"; ("E_91", "") of a binary code."""
    evidence, _, value = code.partition(VALUE_JOIN)
    return evidence, value


def base_code(code: str) -> str:
    return split_code(code)[0]


def join_code(evidence: str, value: str = "") -> str:
    return f"{evidence}{VALUE_JOIN}{value}" if value else evidence


def load_dictionary(path: str | Path) -> Dictionary:
    """The dictionary in ``path``: the folder of the DDXPlus files, or any file in it (a records file)."""
    folder = Path(path)
    folder = folder if folder.is_dir() else folder.parent
    evidences = {e.code: e for e in map(_evidence, json.loads((folder / EVIDENCES).read_text(encoding="utf-8")))}
    hierarchy = json.loads((folder / HIERARCHY).read_text(encoding="utf-8"))
    placed = hierarchy["conditions"]
    conditions = {}
    for raw in json.loads((folder / CONDITIONS).read_text(encoding="utf-8")):
        name = raw["name_en"]
        where = placed[name]
        conditions[name] = Condition(
            name=name,
            icd10=where["icd10_used"],
            severity=int(raw["severity"]),
            chapter=where["L1"],
            block=where["L2"],
            symptoms=tuple(code for code, _ in raw["symptoms"]),
            antecedents=tuple(code for code, _ in raw["antecedents"]),
        )
    chapters = {code: Group(code, raw["name"]) for code, raw in hierarchy["L1"].items()}
    blocks = {code: Group(code, raw["name"]) for code, raw in hierarchy["L2"].items()}
    return Dictionary(evidences, conditions, chapters, blocks, folder)


def load_patients(path: str | Path) -> list[Patient]:
    """The patients of a ``ddxplus-*.jsonl`` file, in file order."""
    patients = []
    with Path(path).open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                patients.append(
                    Patient(
                        id=row["id"],
                        age=int(row["age"]),
                        sex=row["sex"],
                        pathology=row["pathology"],
                        chapter=row["L1"],
                        block=row["L2"],
                        initial_evidence=row["initial_evidence"],
                        codes=tuple(row["evidence_codes"]),
                        text=row["text"],
                    )
                )
    return patients


def _evidence(raw: dict) -> Evidence:
    listed = raw.get("possible_values") or ()
    values = tuple(Value(str(v["code"]), str(v["code"]) if v.get("en") is None else v["en"]) for v in listed)
    default = raw.get("default_value")
    return Evidence(
        code=raw["code"],
        question=raw["question_en"],
        kind=raw["data_type"],
        values=values,
        default="" if raw["data_type"] == BINARY or default is None else str(default),
        antecedent=bool(raw["is_antecedent"]),
        parent=raw.get("code_question") or raw["code"],
    )
