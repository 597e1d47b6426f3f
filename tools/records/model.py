"""A patient record as AMG keeps it: who, the findings present and known absent, the diagnoses, a note.

A finding is keyed as the graph keys the node it links to: an HPO term's key where one fits (``normalize_key`` of its
name, as the vocabularies write it), else the record format's own node (a DDXPlus evidence with no HPO match, a
finding written as text the phenotype recogniser does not know). A diagnosis keeps the ids the record gives (OMIM,
MONDO, ORPHA, ICD-10) and its name; which graph node it is, is resolved when the record is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_NOTE_CHARS = 20_000  # a note longer than this is refused, not cut: a record is read whole or not at all
MAX_FINDINGS = 500  # findings (present and absent) one record may hold
MAX_ID_CHARS = 200


@dataclass(frozen=True, kw_only=True)
class Finding:
    """A finding of a record: the graph key it links to, its label as the record (or the vocabulary) names it, and
    the code the record gave (an HPO id, a DDXPlus evidence code) if any."""

    key: str
    label: str
    code: str = ""


@dataclass(frozen=True, kw_only=True)
class Diagnosis:
    """A diagnosis as the record states it: its name and its ids (``OMIM:154700``, ``ICD-10-CM J18.9``)."""

    name: str
    ids: tuple[str, ...] = ()


@dataclass(kw_only=True)
class PatientRecord:
    """One patient, as read from a record file (``source``: the format it came in)."""

    id: str
    source: str
    age: str = ""  # as written: "54", "P40Y", "40 years"
    sex: str = ""  # "female", "male", "other" or "" (unknown)
    present: tuple[Finding, ...] = ()
    absent: tuple[Finding, ...] = ()
    diagnoses: tuple[Diagnosis, ...] = ()
    note: str = ""
    extra: dict[str, str] = field(default_factory=dict)  # format-specific fields kept for `amg records show`

    def finding_keys(self) -> tuple[set[str], set[str]]:
        """(present keys, absent keys); a finding given both ways counts as present."""
        present = {f.key for f in self.present}
        return present, {f.key for f in self.absent} - present


@dataclass(frozen=True, kw_only=True)
class RecordProblem:
    """Why one record (``file`` at ``line``, 1-based; 0 for a whole file) could not be read."""

    file: str
    line: int
    reason: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.reason}"


def plain_sex(value: object) -> str:
    """ "female" / "male" / "other" / "" from the ways records write it (F, FEMALE, female, 2 ...)."""
    text = str(value or "").strip().lower()
    if text in {"f", "female", "woman", "girl"}:
        return "female"
    if text in {"m", "male", "man", "boy"}:
        return "male"
    if text in {"other", "other_sex", "intersex"}:
        return "other"
    return ""
