"""The drug names other vocabularies link to are exactly the ones drugs.py writes."""

from __future__ import annotations

from amg.tools.kg.vocabularies import drugs
from amg.tools.kg.vocabularies.drug_index import entries, fold, lookup


def test_lookup_by_any_spelling():
    names = lookup()
    assert names[fold("Glucophage")] == "Metformin" and names[fold("métformine")] == "Metformin"
    assert names[fold("acetylsalicylic acid")] == "Aspirin"


def test_drugs_vocabulary_writes_the_index_names():
    first = next(drugs.chunks(size=50))
    assert [e.name for e in first.entities] == [name for _, name, _ in entries()[:50]]
    assert first.evidence[0].id.startswith("vocab:drugs:")
