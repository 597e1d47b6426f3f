"""What a question is, and what the answer rests on, is derived once per question and carried in the state: its kind,
the facts on the point it asks (answering nodes), the paths the model sees, the entities' aliases, whether a chat
message leans on the previous turn, and the claim a message states. Each is counted through the whole QA graph
(scripted model, real graph server)."""

from __future__ import annotations

from collections import Counter

import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver

import amg.agents.answer_synthesizer.review as review
import amg.agents.reasoner as reasoner
import amg.graphs.qa_graph as qa_graph
from amg.graphs.context import Context
from amg.graphs.resources import Resources, install
from amg.testing.scripted_llm import answer_lines, asks_for_answer, asks_for_entities
from amg.tools.kg.records import EvidenceRecord, RelationRecord

COUNTED = {
    qa_graph: (
        "shown_paths",
        "answering_nodes",
        "with_aliases",
        "follows_on",
        "claim_to_check",
        "is_research_question",
    ),
    reasoner: ("shown_paths",),
    review: ("answering_nodes",),
}


def respond(body: dict) -> dict:
    if asks_for_entities(body):
        return {"content": "metformin | drug"}
    if asks_for_answer(body):
        return answer_lines(answer="Diarrhea is the most common side effect of metformin.", confidence=0.6)
    return {"content": "Metformin commonly causes diarrhea."}


@pytest.fixture
def counted(store, scripted_server, tmp_path, monkeypatch):
    """(ask, counts): the graph over a small graph about metformin, each derivation counted per module."""
    ev = EvidenceRecord(id="vocab:test", kind="vocabulary")
    store.upsert(
        evidence=[ev],
        relations=[
            RelationRecord("Diarrhea", "Metformin", type="adverse_effect_of", confidence=0.9, evidence_ids=[ev.id]),
            RelationRecord(
                "Metformin", "Type 2 diabetes mellitus", type="treats", confidence=0.95, evidence_ids=[ev.id]
            ),
        ],
    )
    counts: Counter[str] = Counter()
    for module, names in COUNTED.items():
        for name in names:
            real, label = getattr(module, name), f"{module.__name__.rsplit('.', 1)[-1]}.{name}"

            def wrapped(*args, _real=real, _name=label, **kwargs):
                counts[_name] += 1
                return _real(*args, **kwargs)

            monkeypatch.setattr(module, name, wrapped)
    server = scripted_server(respond)
    ctx = Context(data_dir=str(tmp_path), evidence_mode="offline", answer_samples=0, learn="off")
    install(Resources(ctx, store=store, llm=ChatOpenAI(base_url=server.base_url, api_key="t", model="scripted")))
    chat = qa_graph.builder.compile(checkpointer=InMemorySaver())

    def ask(message: str, thread: str = "t") -> dict:
        counts.clear()
        return chat.invoke({"messages": [HumanMessage(message)]}, {"configurable": {"thread_id": thread}}, context=ctx)

    return ask, counts


def test_an_open_question_derives_each_thing_once(counted):
    ask, counts = counted
    result = ask("What is the most common side effect of metformin?")
    assert result["answer"] and result["kind"] == "exam"
    assert counts == Counter(
        {
            "qa_graph.is_research_question": 1,  # the kind, decided in prepare
            "qa_graph.shown_paths": 1,  # in traverse, read by reason, answer and the evidence picture
            "qa_graph.answering_nodes": 1,  # in traverse, read by reason and the review
            "qa_graph.with_aliases": 1,  # the entities' and the facts' ends' aliases, one read in answer
        }
    )
    assert result["on_point"] and result["shown"] is not None


def test_a_follow_up_is_read_once_as_leaning_on_the_turn_before(counted):
    ask, counts = counted
    ask("What is metformin used for?", thread="chat")
    result = ask("And its most common side effect?", thread="chat")
    assert result["follows"] is True
    assert counts["qa_graph.follows_on"] == 1 and counts["reasoner.shown_paths"] == 0
    assert counts["review.answering_nodes"] == 0 and counts["qa_graph.answering_nodes"] == 1


def test_a_claim_is_derived_once(counted):
    ask, counts = counted
    result = ask("Is it true that metformin causes diarrhea?")
    assert result["kind"] == "claim" and result["claim"]
    assert counts["qa_graph.claim_to_check"] == 1
