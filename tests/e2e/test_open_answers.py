"""An open answer the graph can only improve (issue: never worse for the graph): scripted model, real graph.

The model's draft stands where the graph says nothing on what is asked, however many paths it reaches; a strong,
sourced fact on the point that the draft contradicts revises it, cited; a label's qualifier never reaches the answer.
"""

from __future__ import annotations

import pytest
from langchain_openai import ChatOpenAI

from amg.graphs.context import Context
from amg.graphs.qa_graph import graph
from amg.graphs.resources import Resources, install
from amg.testing.scripted_llm import answer_lines, asks_for_answer, asks_to_verify, last_turn, verdict
from amg.tools.kg.records import EntityRecord, EvidenceRecord, RelationRecord

ENTRY = EvidenceRecord(id="vocab:mondo:MONDO:0005223", kind="vocabulary", title="MONDO:0005223 Lyme disease (MONDO)")


@pytest.fixture
def ask(store, scripted_server, tmp_path):
    store.upsert(
        entities=[EntityRecord("Lyme disease", "disease"), EntityRecord("Wrist drop", "phenotype")],
        evidence=[ENTRY],
        relations=[
            RelationRecord(
                "Borrelia burgdorferi (organism)",
                "Lyme disease",
                type="causes",
                confidence=0.95,
                evidence_ids=[ENTRY.id],
            ),
            RelationRecord(
                "Lyme disease", "Bacterial infectious disease", type="is_a", confidence=1.0, evidence_ids=[ENTRY.id]
            ),
            RelationRecord(
                "Wrist drop",
                "Abnormality of the wrist (phenotype)",
                type="is_a",
                confidence=1.0,
                evidence_ids=[ENTRY.id],
            ),
            RelationRecord(
                "Wrist drop",
                "Charcot-Marie-Tooth disease (axonal, type 2CC)",
                type="symptom_of",
                confidence=0.6,
                evidence_ids=[ENTRY.id],
            ),
        ],
    )
    said = {"draft": "", "revised": ""}
    server = scripted_server(lambda body: reply(body, said))
    llm = ChatOpenAI(base_url=server.base_url, api_key="t", model="scripted", temperature=0)

    def run(question: str, draft: str, revised: str = "") -> dict:
        said.update(draft=draft, revised=revised)
        ctx = Context(data_dir=str(tmp_path), evidence_mode="offline", query_parser="vocabulary")
        install(Resources(ctx, store=store, llm=llm))
        return graph.invoke({"question": question}, context=ctx)

    return run, server


def reply(body: dict, said: dict) -> dict:
    if asks_to_verify(body):
        return verdict(0.9)
    if "A curated medical knowledge graph states" in last_turn(body):
        return {"content": f"Answer: {said['revised'] or said['draft']}"}
    if asks_for_answer(body):
        return answer_lines(answer=said["draft"], confidence=0.7)
    return {"content": "?"}


def reviews(server) -> int:
    return sum("A curated medical knowledge graph states" in last_turn(b) for b in server.requests)


def test_off_topic_paths_leave_a_right_draft_alone(ask):
    run, server = ask
    result = run("Which nerve is injured in wrist drop?", draft="The radial nerve.")
    assert result["subgraph"]["nodes"], "the graph reaches wrist drop's class and a disease"
    assert result["answer"] == "The radial nerve." and reviews(server) == 0
    assert result["confidence_basis"]["rests_on"] and result["citations"] == []
    assert result["confidence_basis"]["p_stated"] == 0.7, "the draft's stated confidence, a signal the map may weigh"
    assert "Charcot" not in result["messages"][-1].content


def test_a_draft_that_agrees_with_the_fact_on_the_point_is_kept_and_cited(ask):
    run, server = ask
    result = run("Which organism causes Lyme disease?", draft="Borrelia burgdorferi causes Lyme disease.")
    assert result["answer"] == "Borrelia burgdorferi causes Lyme disease." and reviews(server) == 0
    assert result["confidence_basis"]["agreed"] and [c["evidence_id"] for c in result["citations"]] == [ENTRY.id]
    assert result["confidence_basis"]["support"] == pytest.approx(0.95)


def test_a_strong_fact_revises_a_wrong_draft_cited_and_in_a_clinicians_words(ask):
    run, server = ask
    result = run(
        "Which organism causes Lyme disease?",
        draft="Lyme disease is caused by a virus.",
        revised="Borrelia burgdorferi (organism) causes Lyme disease.",
    )
    assert reviews(server) == 1 and result["confidence_basis"]["revised"]
    assert "p_stated" not in result["confidence_basis"], "the draft's stated confidence was for the draft"
    assert result["answer"] == "Borrelia burgdorferi causes Lyme disease.", "the label's qualifier is dropped"
    assert [c["evidence_id"] for c in result["citations"]] == [ENTRY.id]
    assert result["messages"][-1].content.startswith("Borrelia burgdorferi causes Lyme disease.\nConfidence")


def test_a_revision_that_names_no_fact_on_the_point_leaves_the_draft(ask):
    run, server = ask
    result = run(
        "Which organism causes Lyme disease?",
        draft="Lyme disease is caused by a virus.",
        revised="Lyme disease is caused by a fungus.",
    )
    assert reviews(server) == 1 and not result["confidence_basis"]["revised"]
    assert result["answer"] == "Lyme disease is caused by a virus." and result["citations"] == []
