"""ICD-10-CM entities stop at the 4-character subcategory; runs on the installed simple-icd-10-cm (its data is built
into the package, so there is no file to cut a fixture from; the whole run takes about 2 s)."""

from __future__ import annotations

import pytest

from amg.tools.kg.vocabularies import icd10
from tests.vocab_helpers import entities_of, evidence_of, relations_of


@pytest.fixture(scope="module")
def chunks():
    return list(icd10.chunks())


def by_code(chunks) -> dict[str, object]:
    return {a.removeprefix("ICD-10-CM "): e for c in chunks for e in c.entities for a in e.aliases}


def test_billing_subtypes_are_aliases_of_their_subcategory(chunks):
    codes = by_code(chunks)
    e116 = codes["E11.6"]
    assert e116.name == "Type 2 diabetes mellitus with other specified complications"
    assert codes["E11.65"] is e116 and codes["E11.641"] is e116
    assert "S72.001A" not in codes and codes["S72.001"].name == codes["S72.0"].name  # 7th character left out
    assert not any(
        e.name.startswith("Type 2 diabetes mellitus with hyperglycemia") for e in entities_of(chunks).values()
    )


def test_hierarchy_and_evidence(chunks):
    names = {code: e.name for code, e in by_code(chunks).items()}
    assert ("Type 2 diabetes mellitus with other specified complications", "is_a", names["E11"]) in relations_of(chunks)
    snippet = evidence_of(chunks)["vocab:icd10:E11.6"].snippet
    assert "E11.65 Type 2 diabetes mellitus with hyperglycemia" in snippet


def test_size(chunks):
    entities = [e for c in chunks for e in c.entities]
    assert 12_000 < len(entities) < 13_000  # chapters, blocks, 3- and 4-character codes (was ~47,000)
