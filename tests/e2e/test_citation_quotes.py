"""Citations that state the claim, and a chat's follow-up that keeps its entity: scripted model, real graph."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver

from amg.cli.answer_format import json_result
from amg.cli.evidence_picture import render
from amg.evaluation.citations import quote_check, relevance_figures
from amg.graphs.context import Context
from amg.graphs.qa_graph import builder
from amg.graphs.resources import Resources, install
from amg.testing.scripted_llm import answer_lines, asks_for_answer, prompt_text
from amg.tools.kg.records import EntityRecord, EvidenceRecord, RelationRecord

PAPER = EvidenceRecord(
    id="pmid:31000001",
    kind="pubmed",
    pmid="31000001",
    year=2021,
    url="https://pubmed.ncbi.nlm.nih.gov/31000001/",
    title="Metformin as first-line therapy for type 2 diabetes mellitus.",
    snippet="Metformin is recommended as the first-line drug for type 2 diabetes mellitus. Metformin lowered HbA1c; "
    "the most common adverse effect was diarrhea, reported by 20% of patients.",
)
METFORMIN = EvidenceRecord(id="vocab:chebi:CHEBI:6801", kind="vocabulary", title="CHEBI:6801 metformin (ChEBI)")
CREATINE = EvidenceRecord(id="vocab:chebi:CHEBI:16919", kind="vocabulary", title="CHEBI:16919 creatine (ChEBI)")
SIDE_EFFECT = "Diarrhea is the most common side effect of metformin."
# with options the model's own citations are read (agents/answer_synthesizer/synthesizer.py): the loose citer's
WITH_OPTIONS = "What is metformin used for?\nA. Type 2 diabetes mellitus\nB. Asthma"


def cited(body: dict, *titles: str) -> list[int]:
    """The evidence numbers the answer's prompt gives the items whose line starts with one of ``titles``."""
    return [
        int(n)
        for n, line in re.findall(r"^\[(\d+)\] \([^)]*\) (.*)$", prompt_text(body), re.M)
        if line.startswith(titles)
    ]


def responder(body: dict) -> dict:
    """A loose citer: every item on metformin's paper and creatine's entry, whatever the answer says."""
    if not asks_for_answer(body):
        return {"content": "Metformin is a biguanide."}
    numbers = cited(body, "Metformin as first-line", "creatine")
    follow_up = "side effect" in prompt_text(body)
    answer = SIDE_EFFECT if follow_up else "Metformin is used for treating type 2 diabetes mellitus."
    return answer_lines(answer=answer, confidence=0.9, citations=numbers)


@pytest.fixture
def chat(store, scripted_server, tmp_path):
    """A chat thread over a small graph: metformin (its paper, its ChEBI entry) and creatine, a fellow guanidine."""
    store.upsert(
        entities=[EntityRecord("Metformin", "drug", aliases=["Glucophage"]), EntityRecord("Creatine", "drug")],
        evidence=[PAPER, METFORMIN, CREATINE],
        relations=[
            RelationRecord(
                "Metformin", "Type 2 diabetes mellitus", type="treats", confidence=0.9, evidence_ids=[PAPER.id]
            ),
            RelationRecord("Diarrhea", "Metformin", type="adverse_effect_of", confidence=0.8, evidence_ids=[PAPER.id]),
            RelationRecord("Metformin", "Guanidines", type="is_a", confidence=1.0, evidence_ids=[METFORMIN.id]),
            RelationRecord("Creatine", "Guanidines", type="is_a", confidence=1.0, evidence_ids=[CREATINE.id]),
        ],
    )
    server = scripted_server(responder)
    graph = builder.compile(checkpointer=InMemorySaver())
    llm = ChatOpenAI(base_url=server.base_url, api_key="test", model="scripted", temperature=0)

    def say(text: str, thread: str = "t", **settings) -> dict:
        ctx = Context(
            data_dir=str(tmp_path),
            evidence_mode="offline",
            query_parser="vocabulary",
            path_ranking="confidence",
            min_path_relevance=0.0,
            **settings,
        )
        install(Resources(ctx, store=store, llm=llm))
        return graph.invoke(
            {"messages": [HumanMessage(text)]}, config={"configurable": {"thread_id": thread}}, context=ctx
        )

    return say, server


def test_a_citation_that_does_not_state_the_claim_is_dropped(chat):
    say, _ = chat
    first = say(WITH_OPTIONS)
    assert [c["evidence_id"] for c in first["citations"]] == [PAPER.id], "creatine's entry names no metformin"
    assert (
        first["citations"][0]["quote"]
        == "Metformin is recommended as the first-line drug for type 2 diabetes mellitus."
    )
    assert first["confidence_basis"]["dropped_citations"] and "creatine" not in first["messages"][-1].content


def test_a_follow_up_keeps_the_entity_and_cites_what_names_it_and_its_side_effect(chat):
    say, server = chat
    say("What is metformin used for?")
    follow = say("And its most common side effect?")
    assert follow["entities"][0]["key"] == "metformin", "the previous turn's entity, first, for retrieval"
    assert "creatine" not in {e["key"] for e in follow["entities"]}
    assert [c["evidence_id"] for c in follow["citations"]] == [PAPER.id]
    quote = follow["citations"][0]["quote"]
    assert quote == "Metformin lowered HbA1c; the most common adverse effect was diarrhea, reported by 20% of patients."
    assert follow["answer"] == SIDE_EFFECT and follow["confidence"] > 0.5
    assert f'"{quote}"' in follow["messages"][-1].content, "the chat shows what the citation is cited for"
    assert follow["question"] == "And metformin's most common side effect?", "asked on its own"


def test_a_follow_up_naming_other_things_keeps_the_entity_it_refers_to(chat, store):
    """Two entities a question at most: the follow-up's own two would have pushed metformin out."""
    say, _ = chat
    store.upsert(entities=[EntityRecord("Lactic acidosis", "disease"), EntityRecord("Diarrhea", "symptom")])
    say("What is metformin used for?", thread="u")
    follow = say("Does it cause diarrhea or lactic acidosis?", thread="u", max_entities=2)
    assert [e["key"] for e in follow["entities"]] == ["metformin", "diarrhea"]
    more = say("What about lactic acidosis?", thread="u", max_entities=2)
    assert [e["key"] for e in more["entities"]] == ["metformin", "lactic acidosis"], "it goes on: metformin carried"
    asked = say("Is lactic acidosis dangerous?", thread="u", max_entities=2)
    assert [e["key"] for e in asked["entities"]] == ["lactic acidosis"], "a new subject, no pronoun: nothing carried"
    assert asked["question"] == "Is lactic acidosis dangerous?", "asked alone, not with the previous turn"


def test_an_unsupported_answer_rests_on_the_models_knowledge_with_a_low_confidence(chat):
    """The graph holds only creatine's class, which does not say what it is used for: the model's own answer stands,
    citing nothing, at a confidence that says so."""
    say, server = chat
    server.responder = lambda body: (
        answer_lines(answer="Creatine is used to build muscle strength.", confidence=0.9, citations=[1])
        if asks_for_answer(body)
        else {"content": "Creatine."}
    )
    result = say("What is creatine used for?")
    assert result["answer"] == "Creatine is used to build muscle strength.", "its draft, without the citation mark"
    assert result["citations"] == [] and result["confidence"] <= 0.45
    assert result["confidence_basis"]["rests_on"].startswith("the model's own knowledge")
    assert "Rests on the model's own knowledge" in result["messages"][-1].content
    assert json_result(result)["confidence_basis"]["rests_on"] == result["confidence_basis"]["rests_on"]
    assert "Rests on the model&#x27;s own knowledge" in render({**result, "question": "What is creatine used for?"})


def test_ask_json_shows_each_citations_quote(chat):
    say, _ = chat
    out = json_result(say("What is metformin used for?"))
    assert [(c["evidence_id"], c["quote"]) for c in out["citations"]] == [
        (PAPER.id, "Metformin is recommended as the first-line drug for type 2 diabetes mellitus.")
    ]


@pytest.mark.skipif(not shutil.which("chromium"), reason="needs Debian's chromium (make test installs it)")
def test_the_evidence_page_shows_the_quote_under_its_citation(chat, tmp_path):
    say, _ = chat
    result = say("What is metformin used for?")
    page = tmp_path / "page.html"
    page.write_text(render({**result, "question": "What is metformin used for?"}), encoding="utf-8")
    dom = subprocess.run(
        [
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1280,800",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    cited = dom.split("Cited evidence")[1]
    assert "PMID 31000001" in cited and '<q class="quote">Metformin is recommended as the first-line drug' in cited


def test_citation_relevance_counts_what_the_model_cited_and_what_was_printed(chat, store):
    """The loose citer cites metformin's paper and creatine's entry: half of what it cited names metformin;
    creatine's entry is dropped, so all that is printed does."""
    say, _ = chat
    first = say(WITH_OPTIONS)
    check = quote_check(first, store)
    assert check == {"naming": [True], "model_cited": True, "dropped": 1}
    figures = relevance_figures([{"quote_check": check}, {"quote_check": None}])
    assert figures["model_cited_relevance"] == 0.5 and figures["printed_relevance"] == 1.0
    assert figures["model_cited_items"] == 2 and figures["printed_items"] == 1
