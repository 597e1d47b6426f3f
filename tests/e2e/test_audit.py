"""`amg kg audit`: finds what earlier versions wrote without grounds, and --fix weakens it, deleting nothing."""

from __future__ import annotations

import json

from amg.agents.relation_scorer import echo_sources
from amg.tools.kg.audit import audit
from amg.tools.kg.records import EntityRecord, EvidenceRecord, RelationRecord


def test_audit_reports_and_fixes_ungrounded_writes(store):
    text = EvidenceRecord(id="pmid:1", kind="pubmed", title="Metformin", snippet="Metformin often causes diarrhea.")
    curated = EvidenceRecord(id="vocab:x", kind="vocabulary", title="x")
    store.upsert(
        entities=[
            EntityRecord(
                "Clopidogrel",
                "drug",
                description="What the evidence says about the entity.",
                description_confidence=0.5,
            ),
            EntityRecord(
                "Aspirin", "drug", description="A salicylate.", description_confidence=1.0, sources=["vocabulary:chebi"]
            ),
        ],
        evidence=[text, curated],
        relations=[
            RelationRecord(
                "Diarrhea",
                "Metformin",
                type="adverse_effect_of",
                confidence=0.6,
                evidence_ids=["pmid:1"],
                score_raw=6,
                description="",
                origin="pubmed",
                model="m",
            ),
            RelationRecord(
                "Metformin",
                "textbook",
                type="associated_with",
                confidence=1.0,
                evidence_ids=["pmid:1"],
                score_raw=10,
                description="",
                origin="textbook",
                model="m",
            ),
            RelationRecord(
                "Metformin",
                "Hair loss",
                type="causes",
                confidence=0.7,
                evidence_ids=["pmid:1"],
                score_raw=7,
                description="",
                origin="pubmed",
                model="m",
            ),
            RelationRecord(
                "Metformin",
                "Rash",
                type="causes",
                confidence=0.7,
                evidence_ids=["pmid:404"],
                score_raw=7,
                description="",
                origin="pubmed",
                model="m",
            ),
            RelationRecord(
                "Aspirin",
                "Antiplatelet agent",
                type="is_a",
                confidence=1.0,
                evidence_ids=["vocab:x"],
                score_raw=10,
                description="",
                origin="vocabulary:chebi",
            ),
        ],
    )
    report = audit(store, echo_sources())
    found = {(v.get("t") or v.get("key"), v["reason"]) for v in report.violations}
    assert found == {
        ("textbook", "'textbook' is not a specific medical entity"),
        ("hair loss", "no cited item names both entities"),
        ("rash", "evidence not stored: pmid:404"),
        ("clopidogrel", "echoes the prompt"),
    }, "curated edges and grounded ones pass"
    assert report.relations_checked == 4 and report.profile["pubmed / m"]["n"] == 3
    fixed = audit(store, echo_sources(), fix=True)
    assert fixed.fixed == 4 and audit(store, echo_sources()).violations == []
    hair = next(r for r in store.relation_history("metformin") if r["target"] == "Hair loss")
    assert hair["status"] == "weakened" and hair["confidence"] == 0.0
    event = json.loads(hair["history"][-1])
    assert event["event"] == "audit" and event["previous"] == 0.7, "history keeps what it was"
    assert store.get_entity("clopidogrel")["description"] == "What the evidence says about the entity.", (
        "nothing deleted"
    )


def test_audit_finds_relations_whose_endpoint_types_do_not_fit(store):
    text = EvidenceRecord(
        id="textbook:1",
        kind="textbook",
        title="Endocrinology",
        snippet="Type 2 diabetes mellitus is managed with metformin, which often causes nausea.",
    )
    store.upsert(
        entities=[
            EntityRecord("Metformin", "drug"),
            EntityRecord("Type 2 diabetes mellitus", "disease"),
            EntityRecord("Nausea", "phenotype"),
        ],
        evidence=[text],
        relations=[
            RelationRecord(
                "Type 2 diabetes mellitus",
                "Metformin",
                type="causes",
                confidence=0.7,
                evidence_ids=["textbook:1"],
                score_raw=10,
                description="",
                origin="textbook",
                model="m",
            ),
            RelationRecord(
                "Type 2 diabetes mellitus",
                "Metformin",
                type="treats",
                confidence=0.7,
                evidence_ids=["textbook:1"],
                score_raw=10,
                description="",
                origin="textbook",
                model="m",
            ),
            RelationRecord(
                "Nausea",
                "Metformin",
                type="symptom_of",
                confidence=0.5,
                evidence_ids=["textbook:1"],
                score_raw=7,
                description="",
                origin="textbook",
                model="m",
            ),
            RelationRecord(
                "Nausea",
                "Metformin",
                type="adverse_effect_of",
                confidence=0.5,
                evidence_ids=["textbook:1"],
                score_raw=7,
                description="",
                origin="textbook",
                model="m",
            ),
            RelationRecord(
                "Metformin",
                "Type 2 diabetes mellitus",
                type="treats",
                confidence=0.7,
                evidence_ids=["textbook:1"],
                score_raw=10,
                description="",
                origin="textbook",
                model="m",
            ),
        ],
    )
    found = {(v["s"], v["type"], v["t"], v["reason"]) for v in audit(store, echo_sources()).violations}
    assert found == {
        ("type 2 diabetes mellitus", "causes", "metformin", "a drug cannot be the target of causes"),
        ("type 2 diabetes mellitus", "treats", "metformin", "a disease cannot be the source of treats"),
        ("nausea", "symptom_of", "metformin", "a drug cannot be the target of symptom_of"),
    }


def test_audit_finds_causes_and_symptoms_read_off_sentences_that_state_neither(store):
    lowers = "Metformin lowers blood glucose mainly by reducing hepatic glucose production."
    adverse = "The most common adverse effects of metformin in type 2 diabetes mellitus are diarrhea and nausea."
    text = EvidenceRecord(
        id="textbook:1",
        kind="textbook",
        title="Endocrinology",
        snippet=f"{lowers} It rarely causes hypoglycemia. {adverse}",
    )
    store.upsert(
        entities=[EntityRecord("Metformin", "drug"), EntityRecord("Type 2 diabetes mellitus", "disease")],
        evidence=[text],
        relations=[
            RelationRecord(
                "Metformin",
                "blood glucose",
                type="causes",
                confidence=0.73,
                evidence_ids=["textbook:1"],
                score_raw=8,
                description=lowers,
                origin="textbook",
                model="m",
            ),
            RelationRecord(
                "Metformin",
                "Hypoglycemia",
                type="causes",
                confidence=0.5,
                evidence_ids=["textbook:1"],
                score_raw=6,
                description="It rarely causes hypoglycemia.",
                origin="textbook",
                model="m",
            ),
            RelationRecord(
                "Diarrhea",
                "Type 2 diabetes mellitus",
                type="symptom_of",
                confidence=0.73,
                evidence_ids=["textbook:1"],
                score_raw=8,
                description=adverse,
                origin="textbook",
                model="m",
            ),
            RelationRecord(
                "Diarrhea",
                "Metformin",
                type="adverse_effect_of",
                confidence=0.73,
                evidence_ids=["textbook:1"],
                score_raw=8,
                description=adverse,
                origin="textbook",
                model="m",
            ),
        ],
    )
    found = {(v["s"], v["t"], v["reason"]) for v in audit(store, echo_sources()).violations}
    assert found == {
        ("metformin", "blood glucose", "its sentence states no cause"),
        (
            "diarrhea",
            "type 2 diabetes mellitus",
            "its sentence names a treatment's adverse effect, not a symptom of the disease",
        ),
    }


def test_audit_finds_an_end_named_only_paragraphs_before_the_sentence_read(store):
    """What the demo learned before the rule: "Long-term use can lower vitamin B12 levels" is about metformin."""
    first = "Metformin is the first-line drug for type 2 diabetes mellitus."
    adverse = "The most common adverse effects of metformin are gastrointestinal."
    b12 = "Long-term use can lower vitamin B12 levels."
    result = "Type 2 diabetes mellitus improved with the drug (p < 0.01)."
    text = EvidenceRecord(id="textbook:1", kind="textbook", title="", snippet=f"{first} {adverse} {b12} {result}")
    store.upsert(
        entities=[EntityRecord("Metformin", "drug"), EntityRecord("Type 2 diabetes mellitus", "disease")],
        evidence=[text],
        relations=[
            RelationRecord(
                "Vitamin B12",
                "Type 2 diabetes mellitus",
                type="risk_factor_for",
                confidence=0.51,
                evidence_ids=["textbook:1"],
                score_raw=7,
                description=b12,
                origin="textbook",
                model="m",
            ),
            RelationRecord(
                "Vitamin B12",
                "Metformin",
                type="adverse_effect_of",
                confidence=0.51,
                evidence_ids=["textbook:1"],
                score_raw=7,
                description=b12,
                origin="textbook",
                model="m",
            ),
            RelationRecord(
                "Metformin",
                "Type 2 diabetes mellitus",
                type="improves",
                confidence=0.5,
                evidence_ids=["textbook:1"],
                score_raw=7,
                description=result,
                origin="pubmed",
                model="m",
            ),
        ],
    )
    found = {(v["s"], v["t"], v["reason"]) for v in audit(store, echo_sources()).violations}
    assert found == {
        (
            "vitamin b12",
            "type 2 diabetes mellitus",
            "neither its sentence nor the one before names 'Type 2 diabetes mellitus'",
        )
    }, "the one about metformin passes, and so does a study's finding, whose sentence need not name its subject"
