"""Reading a DDXPlus case told as text into its evidences, on a small dictionary of DDXPlus's own questions (DDXPlus,
Fansi Tchango et al. 2022, CC BY 4.0): key phrases only (no embedding model), so what is read comes from the words."""

from __future__ import annotations

import json

import pytest

from amg.tools.records.ddxplus import load_dictionary, split_code
from amg.tools.records.ddxplus_hpo import evidence_terms, hpo_links, read_table
from amg.tools.records.ddxplus_reading import CaseReader

SCALE = [{"code": n, "en": None} for n in range(11)]
PLACES = [
    {"code": "V_123", "en": "nowhere"},
    {"code": "V_89", "en": "forehead"},
    {"code": "V_108", "en": "cheek(R)"},
    {"code": "V_109", "en": "cheek(L)"},
    {"code": "V_25", "en": "back of head"},
    {"code": "V_148", "en": "pharynx"},
]


def _evidence(code, question, kind="B", values=None, parent=None, antecedent=False, default=0):
    raw = {"code": code, "question_en": question, "is_antecedent": antecedent, "data_type": kind}
    raw.update({"code_question": parent or code, "default_value": default})
    if values is not None:
        raw["possible_values"] = values
    return raw


EVIDENCES = [
    _evidence("E_91", "Do you have a fever (either felt or measured with a thermometer)?"),
    _evidence("E_201", "Do you have a cough?"),
    _evidence("E_181", "Do you have nasal congestion or a clear runny nose?"),
    _evidence("E_97", "Do you have a sore throat?"),
    _evidence("E_66", "Are you experiencing shortness of breath or difficulty breathing in a significant way?"),
    _evidence("E_79", "Do you smoke cigarettes?", antecedent=True),
    _evidence("E_124", "Do you have asthma or have you ever had to use a bronchodilator in the past?", antecedent=True),
    _evidence("E_142", "Does your mother suffer from asthma?", antecedent=True),
    _evidence("E_53", "Do you have pain somewhere, related to your reason for consulting?"),
    _evidence("E_55", "Do you feel pain somewhere?", "M", PLACES, "E_53", default="V_123"),
    _evidence("E_57", "Does the pain radiate to another location?", "M", PLACES, "E_53", default="V_123"),
    _evidence(
        "E_54",
        "Characterize your pain:",
        "M",
        [{"code": c, "en": n} for c, n in (("V_11", "NA"), ("V_181", "burning"), ("V_192", "sharp"))],
        "E_53",
        default="V_11",
    ),
    _evidence("E_56", "How intense is the pain?", "C", SCALE, "E_53"),
    _evidence("E_59", "How fast did the pain appear?", "C", SCALE, "E_53"),
    _evidence(
        "E_204",
        "Have you traveled out of the country in the last 4 weeks?",
        "M",
        [{"code": "V_10", "en": "N"}, {"code": "V_6", "en": "Asia"}],
        antecedent=True,
        default="V_10",
    ),
]


@pytest.fixture(scope="module")
def dictionary(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ddxplus")
    (folder / "ddxplus-evidences.json").write_text(json.dumps(EVIDENCES))
    condition = {"name": "URTI", "name_en": "URTI", "severity": 5, "symptoms": [["E_201", ""]], "antecedents": []}
    (folder / "ddxplus-conditions.json").write_text(json.dumps([condition]))
    hierarchy = {
        "L1": {"J00-J99": {"name": "Diseases of the respiratory system"}},
        "L2": {"J00-J06": {"name": "Acute upper respiratory infections", "L1": "J00-J99"}},
        "conditions": {"URTI": {"icd10_used": "J06.9", "L1": "J00-J99", "L2": "J00-J06"}},
    }
    (folder / "ddxplus-hierarchy.json").write_text(json.dumps(hierarchy))
    return load_dictionary(folder / "ddxplus-records.jsonl")  # found beside a records file


@pytest.fixture(scope="module")
def reader(dictionary):
    return CaseReader(dictionary, embed=None)


def test_the_dictionary_is_found_beside_a_records_file_with_its_levels(dictionary):
    assert dictionary.level("URTI", 1) == "J00-J99" and dictionary.level("URTI", 2) == "J00-J06"
    assert dictionary.evidences["E_56"].scale and not dictionary.evidences["E_55"].scale
    assert dictionary.evidences["E_55"].parent == "E_53"


def test_a_case_in_the_datasets_own_words(reader):
    text = (
        "Patient: female, age 25.\n"
        "Reason for consulting (initial evidence): Do you have a cough? Yes.\n"
        "- Do you have pain somewhere, related to your reason for consulting? Yes.\n"
        "- Characterize your pain: burning; sharp.\n"
        "- Do you feel pain somewhere? forehead; cheek(R).\n"
        "- How intense is the pain? 5 (scale 0-10).\n"
        "- Does the pain radiate to another location? back of head.\n"
        "- Have you traveled out of the country in the last 4 weeks? No."
    )
    reading = reader.read(text)
    assert (reading.age, reading.sex) == (25, "F")
    assert set(reading.present) == {
        "E_201",
        "E_53",
        "E_54_@_V_181",
        "E_54_@_V_192",
        "E_55_@_V_89",
        "E_55_@_V_108",
        "E_56_@_5",
        "E_57_@_V_25",
        "E_204_@_V_10",
    }
    assert reading.absent == ()


def test_a_patient_in_the_first_person_with_a_denial(reader):
    text = "I've been coughing for a week, my nose is running and I have a sore throat. I don't smoke."
    reading = reader.read(text)
    assert {"E_201", "E_181", "E_97"} <= set(reading.present)
    assert "E_79" in reading.absent and "E_79" not in reading.present
    assert reading.spans["E_79"].text in text and "smoke" in reading.spans["E_79"].text


def test_places_with_their_side_a_kind_of_pain_and_grades_in_other_words(reader):
    text = (
        "The pain is in my forehead and my right cheek, about 5 out of 10, it came on slowly. "
        "It feels like it's burning. It doesn't spread anywhere."
    )
    present = set(reader.read(text).present)
    assert {"E_55_@_V_89", "E_55_@_V_108", "E_56_@_5", "E_54_@_V_181", "E_57_@_V_123", "E_53"} <= present
    assert "E_55_@_V_109" not in present  # the right cheek only
    slow = [int(split_code(c)[1]) for c in present if c.startswith("E_59_@_")]
    assert slow and slow[0] <= 3  # "slowly": a low speed on the 0-10 scale


def test_a_finding_said_of_someone_else_is_theirs(reader):
    present = set(reader.read("My mother has asthma.").present)
    assert "E_142" in present and "E_124" not in present


def test_not_travelling_is_the_no_value(reader):
    assert reader.read("I haven't been abroad lately.").present == ("E_204_@_V_10",)


def test_a_statement_that_names_nothing(reader):
    reading = reader.read("The weather was nice and I took the bus to town to see my cousin.")
    assert reading.present == () and reading.absent == ()


def test_the_hpo_table_maps_a_finding_and_leaves_another_persons_out(dictionary):
    terms = evidence_terms(read_table())
    assert terms["E_91"][0] == "HP:0001945"  # Fever
    assert "E_142" not in terms  # the mother's asthma
    zeros = lambda texts: [[0.0] for _ in texts]  # no vector: only what the recogniser names surely counts
    links = {link.code: link for link in hpo_links(dictionary, embed=zeros)}
    assert links["E_201"].label == "Cough" and links["E_142"].hpo_id == ""


def test_a_clinicians_note_in_the_third_person(reader):
    text = (
        "A 40-year-old man presents with a cough. He denies fever. "
        "The pain in his forehead radiates to the back of his head."
    )
    reading = reader.read(text)
    assert (reading.age, reading.sex) == (40, "M")
    assert {"E_201", "E_55_@_V_89", "E_57_@_V_25", "E_53"} <= set(reading.present)
    assert "E_55_@_V_25" not in reading.present  # where it spreads to is no place of the pain
    assert "E_91" in reading.absent
