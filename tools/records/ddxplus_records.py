"""DDXPlus patients as records, the DDXPlus pathologies as knowledge, and a DDXPlus case read from its text.

The dataset's dictionaries lie beside its patients file (ddxplus-evidences.json, ddxplus-conditions.json,
ddxplus-hierarchy.json). An evidence (or a place's value) is a finding: the HPO term that means it where one fits
(tools/records/data/ddxplus_hpo.tsv), else its own node, named by its question ("Do you smoke cigarettes?"). The 49
pathologies' evidences are public knowledge, written once into the shared graph as ``symptom_of`` annotations
(origin ``vocabulary:ddxplus``) of a frequency DDXPlus does not give (``LISTED``): the differential reads them beside
HPO's. A case is read from text by tools/records/ddxplus_reading.py; a simulated patient answers a follow-up from its
evidence codes alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from amg.tools.kg.records import EntityRecord, EvidenceRecord, RelationRecord
from amg.tools.kg.schema import normalize_key
from amg.tools.records.ddxplus import (
    CONDITIONS,
    EVIDENCES,
    HIERARCHY,
    Dictionary,
    base_code,
    load_dictionary,
    split_code,
)
from amg.tools.records.ddxplus_hpo import TABLE, read_table
from amg.tools.records.model import Diagnosis, Finding, PatientRecord, plain_sex

ORIGIN = "vocabulary:ddxplus"
SOURCE_ID = "vocab:ddxplus:release_conditions"
LISTED = 0.5  # p(evidence | pathology) for an evidence DDXPlus lists for the pathology (it gives no frequency)
YES, NO, UNKNOWN = "yes", "no", "I don't know"


@dataclass(frozen=True, kw_only=True)
class FollowUp:
    """A question to ask: the finding (graph key) it settles and how it is put to the patient."""

    finding: str
    question: str


class DDXPlusRecords:
    """The DDXPlus dictionary as AMG reads it: codes -> findings, records, knowledge, case text, follow-ups."""

    def __init__(self, dictionary: Dictionary, lexicon: Any):
        self.dictionary = dictionary
        self.lexicon = lexicon
        links = {link.code: link for link in read_table(TABLE)} if TABLE.is_file() else {}
        self.findings: dict[str, Finding] = {}  # code -> finding
        for evidence in dictionary.evidences.values():
            codes = [evidence.code] + [f"{evidence.code}_@_{v.code}" for v in evidence.values]
            for code in codes:
                self.findings[code] = self._finding(code, links.get(code))
        self.codes_of: dict[str, set[str]] = {}  # finding key -> the codes it stands for
        for code, found in self.findings.items():
            self.codes_of.setdefault(found.key, set()).add(code)
        self.pathology_keys = {normalize_key(name): name for name in dictionary.conditions}

    def _finding(self, code: str, link) -> Finding:
        evidence_code, value = split_code(code)
        evidence = self.dictionary.evidences[evidence_code]
        if link is not None and link.hpo_id and link.hpo_id in self.lexicon.terms:
            term = self.lexicon.terms[link.hpo_id]
            return Finding(key=term.key, label=term.name, code=code)
        named = evidence.value(value)
        label = evidence.question + (f" {named.name}" if named else "")
        return Finding(key=normalize_key(label), label=label, code=code)  # its own node, named by its question

    def scale_keys(self) -> set[str]:
        """The findings that are a grade on a 0-10 scale: features, never asked as yes/no questions."""
        return {
            f.key
            for code, f in self.findings.items()
            if split_code(code)[1] and self.dictionary.evidences[base_code(code)].scale
        }

    # -- records ------------------------------------------------------------------------------------
    def record(self, data: dict) -> PatientRecord:
        """A DDXPlus patient row as a record (a Problem from formats.py when it cannot be read)."""
        from amg.tools.records.formats import Problem, record_id

        codes = data.get("evidence_codes")
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise Problem("evidence_codes must be a list of DDXPlus codes")
        unknown = [c for c in codes if c not in self.findings]
        if unknown:
            raise Problem(f"unknown code {unknown[0]!r}: not in the DDXPlus evidence dictionary beside the file")
        pathology = data.get("pathology")
        diagnoses: tuple[Diagnosis, ...] = ()
        if isinstance(pathology, str) and pathology:
            icd = self.dictionary.conditions.get(pathology)
            diagnoses = (Diagnosis(name=pathology, ids=(f"ICD-10-CM {icd.icd10}",) if icd else ()),)
        return PatientRecord(
            id=record_id(data, "id"),
            source="ddxplus",
            age=str(data.get("age") or ""),
            sex=plain_sex(data.get("sex")),
            present=tuple(dict.fromkeys(self.findings[c] for c in codes)),
            diagnoses=diagnoses,
        )

    # -- knowledge ----------------------------------------------------------------------------------
    def knowledge(self) -> tuple[list[EntityRecord], list[EvidenceRecord], list[RelationRecord]]:
        """The pathologies and their evidences as the graph's annotations (shared, public knowledge)."""
        source = EvidenceRecord(
            id=SOURCE_ID,
            kind="vocabulary",
            title="DDXPlus release_conditions (Fansi Tchango et al. 2022, CC BY 4.0)",
            release="DDXPlus 2022",
        )
        entities, relations = [], []
        for name, condition in self.dictionary.conditions.items():
            entities.append(EntityRecord(name=name, type="disease", aliases=[f"ICD-10-CM {condition.icd10}"]))
            codes = {*condition.symptoms, *condition.antecedents}
            listed = {c for code in codes for c in self._codes_under(code)}
            keys = {self.findings[c].key for c in listed} - {normalize_key(name)}  # never "X is a symptom of X"
            for key in sorted(keys):
                label = next(self.findings[c].label for c in sorted(listed) if self.findings[c].key == key)
                relations.append(
                    RelationRecord(
                        label,
                        name,
                        type="symptom_of",
                        confidence=round(0.4 + 0.6 * LISTED, 3),
                        evidence_ids=[SOURCE_ID],
                        origin=ORIGIN,
                    )
                )
        return entities, [source], relations

    def _codes_under(self, code: str) -> list[str]:
        """An evidence's code and its values' codes (a pathology listing "where the pain is" lists every place)."""
        evidence = self.dictionary.evidences[code]
        return [code, *(f"{code}_@_{v.code}" for v in evidence.values)]

    def ensure_knowledge(self, graph: Any) -> None:
        """Write the pathologies' annotations once (again only if a pathology is missing)."""
        keys = [normalize_key(name) for name in self.dictionary.conditions]
        if graph.existing_keys(keys) == set(keys) and graph.evidence([SOURCE_ID]):
            return
        entities, evidence, relations = self.knowledge()
        for finding in {r.source_key: r.source for r in relations}.items():
            entities.append(EntityRecord(name=finding[1], type="phenotype"))
        graph.upsert(entities=entities, evidence=evidence, relations=relations)

    # -- cases ----------------------------------------------------------------------------------------
    def read_text(self, text: str) -> dict[str, bool]:
        """The findings a case's text tells: {key: present?} (a denial only where nothing says it is there)."""
        from amg.tools.records.ddxplus_reading import reader

        reading = reader(self.dictionary).read(text)
        told = {self.findings[c].key: False for c in reading.absent if c in self.findings}
        told.update({self.findings[c].key: True for c in reading.present if c in self.findings})
        return told

    @staticmethod
    def chief_complaint(case: dict) -> str:
        """What the patient comes with: age, sex and the initial evidence, as the case file tells them."""
        said = str(case.get("initial_evidence_text") or "").strip()
        said += " Yes." if said.endswith("?") else ""
        who = {"F": "female", "M": "male"}.get(str(case.get("sex") or "").upper(), "")
        return f"Patient: {who}, age {case.get('age', '?')}.\n{said}".strip()

    def simulated_patient(self, case: dict) -> Callable[[str], str]:
        """A patient answering a follow-up from its record alone: yes when a code the finding stands for is its own,
        no when the record says otherwise, "I don't know" for a grade."""
        codes = set(case.get("evidence_codes") or [])
        scales = self.scale_keys()

        def reply(finding: str) -> str:
            if finding in scales or finding not in self.codes_of:
                return UNKNOWN
            return YES if self.codes_of[finding] & codes else NO

        return reply

    def question(self, finding: str, label: str) -> FollowUp:
        """A finding put as a question: DDXPlus's own question for its own node, else "Do you have ...?"."""
        codes = sorted(self.codes_of.get(finding, ()))
        if codes and finding not in self.lexicon.by_key:  # the evidence's own node: DDXPlus's own question
            code = codes[0]
            evidence = self.dictionary.evidences[base_code(code)]
            named = evidence.value(split_code(code)[1])
            asked = evidence.question + (f" {named.name}?" if named else "")
            return FollowUp(finding=finding, question=asked)
        return FollowUp(finding=finding, question=f"Do you have {label.lower()}?")

    @staticmethod
    def read_reply(asked: FollowUp, reply: str) -> dict[str, bool]:
        said = reply.strip().lower()
        if said.startswith(YES):
            return {asked.finding: True}
        if said.startswith(NO):
            return {asked.finding: False}
        return {}

    def pathology_name(self, key: str) -> str | None:
        return self.pathology_keys.get(key)

    def pathologies(self) -> list[str]:
        return list(self.dictionary.conditions)

    def level(self, pathology: str, depth: int) -> str:
        return self.dictionary.level(pathology, depth) if pathology in self.dictionary.conditions else ""


def reader_beside(path: Path, names: Any, graph: Any) -> DDXPlusRecords | None:
    """The DDXPlus reader for ``path`` when the dataset's dictionaries lie beside it (its knowledge written to
    ``graph`` once), else None."""
    folder = Path(path).parent
    if not all((folder / name).is_file() for name in (EVIDENCES, CONDITIONS, HIERARCHY)):
        return None
    records = DDXPlusRecords(load_dictionary(folder), names.lexicon)
    if graph is not None:
        records.ensure_knowledge(graph)
    return records
