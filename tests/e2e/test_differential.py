"""Differential diagnosis from disease-phenotype annotations, and the follow-up question that separates."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver

from amg.agents.diagnostician import differentiate
from amg.agents.reasoner import number_evidence
from amg.graphs.context import Context
from amg.graphs.qa_graph import builder
from amg.graphs.resources import Resources, install
from amg.testing.graph_staging import set_entity_fields
from amg.testing.scripted_llm import answer_lines, asks_for_answer, asks_for_entities
from amg.tools.kg.records import EvidenceRecord, RelationRecord
from amg.tools.kg.schema import normalize_key
from amg.tools.kg.traversal.differential import inherit

# Two look-alike diseases share fever and rash; only one has hepatosplenomegaly (nearly always),
# the other arthritis (often). A third shares fever only.
ANNOTATIONS = {
    "alpha": {"fever": 0.9, "rash": 0.8, "hepatosplenomegaly": 0.9, "headache": 0.3},
    "beta": {"fever": 0.9, "rash": 0.8, "arthritis": 0.6, "headache": 0.3},
    "gamma": {"fever": 0.9, "cough": 0.9},
}


@pytest.fixture
def case_graph(store):
    ev = EvidenceRecord(id="vocab:hpoa:test", kind="vocabulary")
    rels = [
        RelationRecord(
            f.title(),
            d.title(),
            type="symptom_of",
            confidence=round(0.4 + 0.6 * p, 3),
            evidence_ids=[ev.id],
            score_raw=None,
            description="",
            origin="vocabulary:hpo",
        )
        for d, findings in ANNOTATIONS.items()
        for f, p in findings.items()
    ]
    store.upsert(evidence=[ev], relations=rels)
    for name in ("Fever", "Rash", "Hepatosplenomegaly", "Arthritis", "Headache", "Cough"):
        set_entity_fields(store, name.lower(), {"type": "phenotype"})
    return store


def test_differential_from_the_graph(case_graph):
    entities = [
        {"key": "fever", "name": "fever", "type": "phenotype"},
        {"key": "rash", "name": "rash", "type": "phenotype"},
    ]
    out = differentiate(entities, case_graph, answered={})
    assert {c["key"] for c in out["differential"][:2]} == {"alpha", "beta"}
    assert out["follow_up"][0]["finding"] == "hepatosplenomegaly"
    assert out["follow_up"][0]["question"] == "Does the patient have hepatosplenomegaly?"
    assert out["differential"][0]["evidence_ids"] == ["vocab:hpoa:test"], "the annotations behind the candidate"
    numbered = number_evidence([], [], store=case_graph, links=[], differential=out["differential"])
    assert [e["id"] for e in numbered] == ["vocab:hpoa:test"], "a case's candidates can be cited"
    settled = differentiate(entities, case_graph, answered={"hepatosplenomegaly": True})
    assert settled["differential"][0]["key"] == "alpha" and settled["differential"][0]["probability"] > 0.9
    assert settled["follow_up"] == [], "no question once one candidate leads clearly"


def test_chat_reply_to_a_follow_up_updates_the_differential(case_graph, scripted_server, tmp_path):
    def respond(body):
        if asks_for_entities(body):
            return {"content": "fever | symptom\nrash | symptom"}
        return (
            answer_lines(answer="A febrile rash illness.", confidence=0.4)
            if asks_for_answer(body)
            else {"content": "ok"}
        )

    server = scripted_server(respond)
    ctx = Context(
        data_dir=str(tmp_path), evidence_mode="offline", query_parser="llm"
    )  # the findings as the model names them
    install(Resources(ctx, store=case_graph, llm=ChatOpenAI(base_url=server.base_url, api_key="t", model="scripted")))
    chat = builder.compile(checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "case-1"}}
    first = chat.invoke(
        {"messages": [HumanMessage("Fever and a rash for three days: what is it?")]}, thread, context=ctx
    )
    assert first["follow_up"][0]["finding"] == "hepatosplenomegaly"
    assert "To tell them apart: Does the patient have hepatosplenomegaly?" in first["messages"][-1].content
    second = chat.invoke({"messages": [HumanMessage("No hepatosplenomegaly.")]}, thread, context=ctx)
    assert second["findings"] == {"hepatosplenomegaly": False}
    assert "(Previous question: Fever and a rash" in second["question"], "the case goes on: read with what it said"
    assert second["differential"][0]["key"] == "beta", "the answer moved the differential"


def test_a_finding_the_case_already_implies_is_not_asked(case_graph):
    entities = [
        {"key": "fever", "name": "fever", "type": "phenotype"},
        {"key": "rash", "name": "rash", "type": "phenotype"},
    ]
    ev = EvidenceRecord(id="vocab:hpo:skin", kind="vocabulary")
    case_graph.upsert(
        evidence=[ev],
        relations=[
            RelationRecord(
                "Rash",
                "Skin abnormality",
                type="is_a",
                confidence=1.0,
                evidence_ids=[ev.id],
                score_raw=None,
                description="",
                origin="vocabulary:hpo",
            ),
            RelationRecord(
                "Skin abnormality",
                "Alpha",
                type="symptom_of",
                confidence=0.94,
                evidence_ids=[ev.id],
                score_raw=None,
                description="",
                origin="vocabulary:hpo",
            ),
            RelationRecord(
                "Skin abnormality",
                "Beta",
                type="symptom_of",
                confidence=0.4,
                evidence_ids=[ev.id],
                score_raw=None,
                description="",
                origin="vocabulary:hpo",
            ),
        ],
    )
    asked = [f["finding"] for f in differentiate(entities, case_graph, answered={})["follow_up"]]
    assert asked and "skin abnormality" not in asked, "a rash is a skin abnormality"


def test_one_finding_makes_a_differential_only_for_a_patient(case_graph):
    fever = [{"key": "fever", "name": "fever", "type": "phenotype"}]
    asked = differentiate(fever, case_graph, answered={}, text="Which infections cause fever?")
    assert asked == {"differential": [], "follow_up": [], "similar": []}, "a finding asked about, not a patient's"
    out = differentiate(fever, case_graph, answered={}, text="My son has had a fever for three days.")
    assert {c["key"] for c in out["differential"]} == {"alpha", "beta", "gamma"}, "a patient's one finding is a start"


def test_a_question_that_names_its_disease_gets_no_differential(case_graph):
    entities = [
        {"key": "fever", "name": "fever", "type": "phenotype"},
        {"key": "rash", "name": "rash", "type": "phenotype"},
        {"key": "alpha", "name": "Alpha", "type": "disease"},
    ]
    assert differentiate(entities, case_graph, answered={}) == {"differential": [], "follow_up": [], "similar": []}


# Look-alikes in HPO's own names: ectopia lentis tells the first from the second; the third has multiple
# cafe-au-lait spots (a finer term than the fourth's cafe-au-lait spot): what tells it from the fourth.
CASES = {
    "Marfan-like": {"Ectopia lentis": 0.7, "Aortic root aneurysm": 0.8, "Arachnodactyly": 0.8, "Pectus excavatum": 0.5},
    "Loeys-like": {"Aortic root aneurysm": 0.8, "Arachnodactyly": 0.7, "Bifid uvula": 0.6, "Pectus excavatum": 0.5},
    "NF-like": {"Multiple cafe-au-lait spots": 0.9, "Axillary freckling": 0.8, "Lisch nodules": 0.6, "Scoliosis": 0.3},
    "Legius-like": {"Cafe-au-lait spot": 0.9, "Axillary freckling": 0.8, "Macrocephaly": 0.5, "Lipoma": 0.4},
}


@pytest.fixture
def hpo_cases(store):
    ev = EvidenceRecord(id="vocab:hpoa:cases", kind="vocabulary")
    rels = [
        RelationRecord(
            f,
            d,
            type="symptom_of",
            confidence=round(0.4 + 0.6 * p, 3),
            evidence_ids=[ev.id],
            score_raw=None,
            description="",
            origin="vocabulary:hpo",
        )
        for d, findings in CASES.items()
        for f, p in findings.items()
    ]
    store.upsert(evidence=[ev], relations=rels)
    for finding in {f for findings in CASES.values() for f in findings}:
        set_entity_fields(store, normalize_key(finding), {"type": "phenotype"})
    return store


def test_a_case_in_a_clinicians_words_is_read(hpo_cases):
    said = "Long slender fingers, dislocated lenses of both eyes and a dilated aortic root."
    out = differentiate([], hpo_cases, answered={}, text=said)
    assert out["differential"][0]["name"] == "Marfan-like"
    assert out["differential"][0]["present"] == ["Aortic root aneurysm", "Arachnodactyly", "Ectopia lentis"]


def test_a_negated_finding_counts_against(hpo_cases):
    said = "Long slender fingers, no lens dislocation, and a dilated aortic root."
    out = differentiate(
        [{"key": "ectopia lentis", "name": "lens dislocation", "type": "phenotype"}], hpo_cases, answered={}, text=said
    )
    assert out["differential"][0]["name"] == "Loeys-like", "the model's entity for a negated finding is no finding"
    marfan = next(c for c in out["differential"] if c["name"] == "Marfan-like")
    assert marfan["absent"] == ["Ectopia lentis"] and "Ectopia lentis" not in marfan["present"]


def test_a_stated_finding_is_never_asked(hpo_cases):
    said = "Cafe-au-lait spots and freckling in both axillae."
    out = differentiate(
        [{"key": "freckling", "name": "freckling", "type": "phenotype"}], hpo_cases, answered={}, text=said
    )
    assert {c["name"] for c in out["differential"][:2]} == {"NF-like", "Legius-like"}
    asked = {f["finding"] for f in out["follow_up"]}
    assert asked, "the two leaders are close: something is asked"
    assert not asked & {"multiple cafe au lait spot", "cafe au lait spot", "axillary freckling", "freckling"}, (
        "multiple cafe-au-lait spots would split them best, but the case has said cafe-au-lait spots"
    )


def test_a_general_finding_counts_for_a_disease_annotated_with_a_finer_one(hpo_cases):
    out = differentiate(
        [], hpo_cases, answered={}, text="Cafe-au-lait spots, freckling in both axillae and Lisch nodules."
    )
    nf = next(c for c in out["differential"] if c["name"] == "NF-like")
    assert "Cafe-au-lait spot" in nf["present"], "a patient with multiple cafe-au-lait spots has cafe-au-lait spots"
    assert nf["frequencies"]["Cafe-au-lait spot"] == pytest.approx(0.9, abs=0.01)
    assert inherit({"d": {"x": 0.9}}, {"y": {"x", "z"}, "w": {"v"}}) == {"d": {"x": 0.9, "y": 0.9}}


def test_a_chat_reply_in_other_words_answers_the_follow_up(hpo_cases, scripted_server, tmp_path):
    def respond(body):
        return answer_lines(answer="Marfan-like.", confidence=0.4) if asks_for_answer(body) else {"content": "ok"}

    server = scripted_server(respond)
    ctx = Context(data_dir=str(tmp_path), evidence_mode="offline", query_parser="vocabulary")
    install(Resources(ctx, store=hpo_cases, llm=ChatOpenAI(base_url=server.base_url, api_key="t", model="scripted")))
    chat = builder.compile(checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "case-2"}}
    first = chat.invoke(
        {"messages": [HumanMessage("Long slender fingers and a dilated aortic root: what is it?")]}, thread, context=ctx
    )
    assert first["differential"][0]["name"] == "Marfan-like"
    assert "ectopia lentis" in [f["finding"] for f in first["follow_up"]]
    second = chat.invoke({"messages": [HumanMessage("His lenses are not dislocated.")]}, thread, context=ctx)
    assert second["findings"] == {"ectopia lentis": False}
    assert second["differential"][0]["name"] == "Loeys-like", "the answer moved the differential"


def test_a_finding_counts_once_however_many_finer_terms_a_disease_has(store):
    """The candidate pool: a disease with three kinds of seizure shares one finding of a case with seizures and
    fever, less than one with both (counted per key, it would fill the pool first)."""
    ev = EvidenceRecord(id="vocab:hpoa:pool", kind="vocabulary")
    seizures = ["Focal seizure", "Absence seizure", "Tonic seizure"]
    rels = [
        RelationRecord(
            f,
            "Many-seizures",
            type="symptom_of",
            confidence=0.9,
            evidence_ids=[ev.id],
            score_raw=None,
            description="",
            origin="vocabulary:hpo",
        )
        for f in seizures
    ]
    rels += [
        RelationRecord(
            f,
            "Seizures-and-fever",
            type="symptom_of",
            confidence=0.9,
            evidence_ids=[ev.id],
            score_raw=None,
            description="",
            origin="vocabulary:hpo",
        )
        for f in ("Seizure", "Fever")
    ]
    store.upsert(evidence=[ev], relations=rels)
    findings = {"seizure": ["seizure", *(normalize_key(f) for f in seizures)], "fever": ["fever"]}
    both, many = normalize_key("Seizures-and-fever"), normalize_key("Many-seizures")
    assert {r["disease"] for r in store.disease_annotations(findings, 1)} == {both}
    assert {r["disease"] for r in store.disease_annotations({"seizure": findings["seizure"]}, 2)} == {both, many}
