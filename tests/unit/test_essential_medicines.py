"""WHO essential medicines -> therapeutic sections, on a fixture cut from the GNU Health package's XML."""

from __future__ import annotations

import pytest

from amg.tools.kg.vocabularies import essential_medicines
from tests.vocab_helpers import FIXTURES, entities_of, evidence_of

DIABETES = "Insulins and other medicines used for diabetes (WHO EML 18.5)"


@pytest.fixture(scope="module")
def chunks():
    return list(essential_medicines.chunks(data_dir=FIXTURES / "essential_medicines"))


def relations(chunks) -> list[tuple[str, str, str, float, str]]:
    return [(r.source, r.type, r.target, r.confidence, r.evidence_ids[0]) for c in chunks for r in c.relations]


def test_metformin_is_a_member_of_the_diabetes_section_also_from_the_complementary_list(chunks):
    found = {(s, t, c, e) for s, ty, t, c, e in relations(chunks) if ty == "member_of"}
    assert ("Metformin", DIABETES, 0.9, "vocab:who-eml:meds_em337") in found
    assert ("Metformin", DIABETES, 0.9, "vocab:who-eml:meds_em338") in found  # 18.5c folds into 18.5
    assert "complementary list" in evidence_of(chunks)["vocab:who-eml:meds_em338"].title
    assert not any("(WHO EML 18.5c)" in e for e in entities_of(chunks))


def test_listed_names_map_to_the_drug_dictionary_and_combinations_split(chunks):
    members = {s for s, ty, _, _, _ in relations(chunks) if ty == "member_of"}
    assert {"Aspirin", "Isoniazid", "Rifampin"} <= members  # acetylsalicylic acid; isoniazid + rifampicin
    assert "acetylsalicylic acid" in entities_of(chunks)["Aspirin"].aliases


def test_sections_are_named_unambiguously_and_nested(chunks):
    found = {(s, t) for s, ty, t, c, _ in relations(chunks) if ty == "part_of" and c == 1.0}
    assert (DIABETES, "Hormones, other endocrine medicines and contraceptives (WHO EML 18)") in found
    assert ("Antibacterials: antituberculosis medicines (WHO EML 6.2.4)", "Antibacterials (WHO EML 6.2)") in found
    assert entities_of(chunks)[DIABETES].type == "other"
    assert evidence_of(chunks)["vocab:who-eml:meds_em337"].snippet.startswith("Tablet: 500 mg")
