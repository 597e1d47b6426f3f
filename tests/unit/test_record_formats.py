"""Patient record files read into records: GA4GH phenopackets (a file each, or JSON lines), the flattened
phenopacket-store rows, AMG's own JSON lines with a note; and every bad record refused with its file, line and reason
while the others are read."""

from __future__ import annotations

import gzip
import json

import pytest

from amg.tools.phenotypes.lexicon import hpo_lexicon
from amg.tools.phenotypes.recognizer import recognise
from amg.tools.records.formats import MAX_DEPTH, FindingNames, read_records
from amg.tools.records.model import MAX_NOTE_CHARS, PatientRecord, RecordProblem

PHENOPACKET = {
    "id": "family-1-proband",
    "subject": {"id": "P1", "sex": "FEMALE", "timeAtLastEncounter": {"age": {"iso8601duration": "P14Y"}}},
    "phenotypicFeatures": [
        {"type": {"id": "HP:0001083", "label": "Ectopia lentis"}},
        {"type": {"id": "HP:0001166", "label": "Arachnodactyly"}},
        {"type": {"id": "HP:0001250", "label": "Seizure"}, "excluded": True},
    ],
    "interpretations": [{"diagnosis": {"disease": {"id": "OMIM:154700", "label": "Marfan syndrome"}}}],
    "metaData": {"created": "2024-01-01T00:00:00Z"},
}


@pytest.fixture(scope="module")
def names():
    return FindingNames(hpo_lexicon(), recognise)


def read(path, names) -> list:
    return list(read_records(path, names))


def test_a_phenopacket_file_pretty_printed_is_one_patient(tmp_path, names):
    path = tmp_path / "proband.json"
    path.write_text(json.dumps(PHENOPACKET, indent=2))
    [record] = read(path, names)
    lexicon = hpo_lexicon()
    assert record.id == "family-1-proband" and (record.sex, record.age) == ("female", "P14Y")
    assert [f.code for f in record.present] == ["HP:0001083", "HP:0001166"]
    assert [f.key for f in record.present] == [lexicon.terms["HP:0001083"].key, lexicon.terms["HP:0001166"].key]
    assert [(f.code, f.label) for f in record.absent] == [("HP:0001250", "Seizure")]
    assert [(d.name, d.ids) for d in record.diagnoses] == [("Marfan syndrome", ("OMIM:154700",))]


def test_phenopackets_as_gzipped_json_lines_and_flattened_rows(tmp_path, names):
    row = {
        "id": "PMID_1_P2",
        "disease_id": "OMIM:154700",
        "disease_label": "Marfan syndrome",
        "hpo_present": [["HP:0001083", "Ectopia lentis"]],
        "hpo_excluded": [["HP:0001250", "Seizure"]],
        "sex": "MALE",
        "age_text": "20 years",
    }
    path = tmp_path / "cases.jsonl.gz"
    with gzip.open(path, "wt") as handle:
        handle.write(json.dumps(PHENOPACKET) + "\n" + json.dumps(row) + "\n")
    first, second = read(path, names)
    assert first.id == "family-1-proband" and second.id == "PMID_1_P2"
    assert (second.sex, second.age, [f.code for f in second.absent]) == ("male", "20 years", ["HP:0001250"])
    assert second.diagnoses[0].ids == ("OMIM:154700",)


def test_a_newer_hpo_term_is_kept_as_the_records_own_finding(tmp_path, names):
    path = tmp_path / "new.jsonl"
    path.write_text(json.dumps({"id": "x", "hpo_present": [["HP:9999999", "Very new finding"]]}) + "\n")
    [record] = read(path, names)
    assert (record.present[0].key, record.present[0].code) == ("very new finding", "HP:9999999")


def test_amgs_own_format_reads_ids_text_and_the_note(tmp_path, names):
    own = {
        "id": "clinic-0042",
        "age": 54,
        "sex": "F",
        "present": ["HP:0001945", "productive cough"],
        "absent": ["hemoptysis"],
        "diagnosis": ["Community-acquired pneumonia", "ICD-10 J18.9"],
        "note": "Three days of fever and cough. She denies chest pain. Crackles at the right base.",
    }
    path = tmp_path / "clinic.jsonl"
    path.write_text(json.dumps(own) + "\n")
    [record] = read(path, names)
    present = {f.key for f in record.present}
    assert hpo_lexicon().terms["HP:0001945"].key in present  # fever, by its id
    assert "chest pain" in {f.key for f in record.absent}, "the note's denied finding is absent"
    assert "hemoptysis" in {f.key for f in record.absent}
    assert [(d.name, d.ids) for d in record.diagnoses] == [
        ("Community-acquired pneumonia", ()),
        ("ICD-10 J18.9", ("ICD-10-CM J18.9",)),
    ]
    assert (record.age, record.sex, record.source) == ("54", "female", "amg")


BAD = [
    ({"present": ["fever"]}, "no id"),
    ({"id": "a", "hpo_present": [["HP:12", "x"]]}, "unknown code 'HP:12'"),
    ({"id": "a", "present": "fever"}, "present must be a list, not str"),
    ({"id": "a", "present": ["fever"], "note": "x" * (MAX_NOTE_CHARS + 1)}, "the note has"),
    ({"id": "a", "findings": [{"present": True}]}, "findings are HPO ids or text"),
    ({"id": "a", "weight": 70}, "not a record format AMG reads"),
    (["not", "an", "object"], "a record is a JSON object, not list"),
]


def test_each_bad_record_is_refused_with_file_line_and_reason_and_the_others_are_read(tmp_path, names):
    nested = {"id": "deep", "present": ["fever"]}
    for _ in range(MAX_DEPTH + 5):
        nested = {"id": "deep", "present": ["fever"], "x": nested}
    lines = [json.dumps({"id": "good-1", "present": ["fever"]})]
    lines += [json.dumps(data) for data, _ in BAD]
    lines += ["{not json", json.dumps(nested), json.dumps({"id": "good-2", "present": ["cough"]})]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    out = read(path, names)
    assert [r.id for r in out if isinstance(r, PatientRecord)] == ["good-1", "good-2"]
    problems = [r for r in out if isinstance(r, RecordProblem)]
    assert [p.line for p in problems] == list(range(2, 2 + len(BAD) + 2))
    for problem, (_, reason) in zip(problems, BAD):
        assert reason in problem.reason and problem.file == str(path)
    assert "not valid JSON" in problems[len(BAD)].reason
    assert "nested deeper" in problems[len(BAD) + 1].reason
    assert str(problems[0]).startswith(f"{path}:2: ")


def test_an_empty_missing_or_binary_file_is_one_problem(tmp_path, names):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    assert [p.reason for p in read(empty, names)] == ["the file is empty"]
    assert [p.reason for p in read(tmp_path / "nowhere.jsonl", names)] == ["no such file"]
    binary = tmp_path / "image.jsonl"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    [problem] = read(binary, names)
    assert isinstance(problem, RecordProblem) and "not a text file" in problem.reason
