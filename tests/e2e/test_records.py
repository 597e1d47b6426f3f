"""A clinician's own patients, end to end on the real graph server: ingested (the graph links them to the
vocabularies' findings and diseases, a record store keeps them), similar patients found, a stored patient diagnosed
without a model, a follow-up reply re-ranking with records, deleted leaving nothing, re-ingested replacing, a bad
record refused while the rest go in, and nothing of a record in any request that leaves the machine."""

from __future__ import annotations

import http.client
import json

import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver

from amg.graphs.context import Context
from amg.graphs.qa_graph import builder, graph
from amg.graphs.resources import Resources, install
from amg.testing.graph_staging import set_entity_fields
from amg.testing.scripted_llm import answer_lines, asks_for_answer
from amg.tools.kg.records import EvidenceRecord, RelationRecord
from amg.tools.kg.schema import normalize_key
from amg.tools.phenotypes.lexicon import hpo_lexicon
from amg.tools.phenotypes.recognizer import recognise
from amg.tools.records.formats import FindingNames
from amg.tools.records.ingest import delete, ingest
from amg.tools.records.store import RecordStore

CASES = {
    "Marfan-like": {"Ectopia lentis": 0.7, "Aortic root aneurysm": 0.8, "Arachnodactyly": 0.8, "Pectus excavatum": 0.5},
    "Loeys-like": {"Aortic root aneurysm": 0.8, "Arachnodactyly": 0.7, "Bifid uvula": 0.6, "Pectus excavatum": 0.5},
}
MARKER_NOTE = "She lives near the Elbe river and keeps bees."  # what no request may carry
PATIENTS = [
    {
        "id": "clinic-001",
        "sex": "F",
        "age": 15,
        "present": ["Ectopia lentis", "Arachnodactyly", "Brachydactyly"],
        "diagnosis": "Marfan-like",
        "note": MARKER_NOTE,
    },
    {
        "id": "clinic-002",
        "sex": "M",
        "age": 22,
        "present": ["Ectopia lentis", "Aortic root aneurysm"],
        "absent": ["Bifid uvula"],
        "diagnosis": "Marfan-like",
    },
    {
        "id": "clinic-003",
        "sex": "M",
        "age": 30,
        "present": ["Bifid uvula", "Aortic root aneurysm", "Arachnodactyly"],
        "diagnosis": "Loeys-like",
    },
]


@pytest.fixture
def clinic(store, tmp_path):
    """The graph with the two look-alikes' annotations, and three stored patients of the clinic."""
    ev = EvidenceRecord(id="vocab:hpoa:cases", kind="vocabulary")
    rels = [
        RelationRecord(
            f, d, type="symptom_of", confidence=round(0.4 + 0.6 * p, 3), evidence_ids=[ev.id], origin="vocabulary:hpo"
        )
        for d, findings in CASES.items()
        for f, p in findings.items()
    ]
    store.upsert(evidence=[ev], relations=rels)
    for finding in {f for findings in CASES.values() for f in findings}:
        set_entity_fields(store, normalize_key(finding), {"type": "phenotype"})
    for disease in CASES:
        set_entity_fields(store, normalize_key(disease), {"type": "disease"})
    path = tmp_path / "clinic.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in PATIENTS))
    ctx = Context(data_dir=str(tmp_path / "data"), evidence_mode="offline", query_parser="vocabulary")
    records = RecordStore(ctx.data_path / "records")
    names = FindingNames(hpo_lexicon(), recognise)
    report = ingest([path], records=records, graph=store, names=names)
    assert (report.stored, report.refused) == (3, [])
    return ctx, records, names, path


def test_patients_link_to_the_vocabularies_nodes_and_their_own(clinic, store):
    ctx, records, _, _ = clinic
    links = store.patient_links("clinic-001")
    findings = {(x["key"], x["present"]) for x in links if x["kind"] == "finding"}
    assert {("ectopia lentis", True), ("arachnodactyly", True)} <= findings
    assert ("brachydactyly", True) in findings, "a finding the graph lacks links to the tier's own node"
    assert [x["key"] for x in links if x["kind"] == "diagnosis"] == ["marfan like"]
    own = store.read("MATCH (f:RecordFinding) RETURN f.key AS key")
    assert [r["key"] for r in own] == ["brachydactyly"], "never an Entity of the shared graph"
    assert store.read("MATCH (e:Entity {key: 'brachydactyly'}) RETURN e") == []
    assert records.get("clinic-001").record.note == MARKER_NOTE


def test_the_most_similar_patient_shares_both_findings_and_a_contradiction_counts(clinic, store):
    ctx, records, _, _ = clinic
    install(Resources(ctx, store=store, llm=None))
    from amg.graphs.resources import resources_for

    index = resources_for(ctx).patient_index
    similar = index.similar({"ectopia lentis", "aortic root aneurysm"}, {"bifid uvula"}, k=3)
    assert similar[0].id == "clinic-002" and similar[0].shared == ("aortic root aneurysm", "ectopia lentis")
    loeys = next(
        p
        for p in index.similar({"aortic root aneurysm", "arachnodactyly"}, {"bifid uvula"}, k=3)
        if p.id == "clinic-003"
    )
    assert loeys.contradicted == ("bifid uvula",)


class NoModel:
    """A model that must not be called."""

    model_name = "none"

    def __getattr__(self, name):
        raise AssertionError(f"a stored patient's case called the model ({name})")


def test_a_stored_patient_is_diagnosed_from_both_halves_without_a_model(clinic, store):
    ctx, _, _, _ = clinic
    install(Resources(ctx, store=store, llm=NoModel()))
    result = graph.invoke({"record": "clinic-002"}, context=ctx)
    assert result["differential"][0]["name"] == "Marfan-like"
    assert result["answer"].startswith("Most likely: Marfan-like")
    assert {p["id"] for p in result["similar"]} == {"clinic-001", "clinic-003"}, "never its own record"
    assert result["confidence"] == result["differential"][0]["probability"]
    assert "Similar patient clinic-001: Marfan-like" in result["messages"][-1].content
    missing = graph.invoke({"record": "nobody"}, context=ctx)
    assert missing["problem"].startswith("No stored patient 'nobody'")


def test_a_follow_up_reply_re_ranks_with_the_records(clinic, store, scripted_server):
    ctx, _, _, _ = clinic

    def respond(body):
        return answer_lines(answer="Marfan-like.", confidence=0.4) if asks_for_answer(body) else {"content": "ok"}

    server = scripted_server(respond)
    install(Resources(ctx, store=store, llm=ChatOpenAI(base_url=server.base_url, api_key="t", model="scripted")))
    chat = builder.compile(checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "records"}}
    said = "A young man with long slender fingers and a dilated aortic root: what is it?"
    first = chat.invoke({"messages": [HumanMessage(said)]}, thread, context=ctx)
    assert first["similar"], "the stored patients are read beside the annotations"
    asked = [f["finding"] for f in first["follow_up"]]
    assert {"ectopia lentis", "bifid uvula"} & set(asked)
    second = chat.invoke({"messages": [HumanMessage("He has a bifid uvula.")]}, thread, context=ctx)
    assert second["findings"] == {"bifid uvula": True}
    assert second["differential"][0]["name"] == "Loeys-like", "the reply moved the differential"
    assert second["similar"][0]["id"] == "clinic-003"


def test_delete_leaves_nothing_and_a_re_ingest_replaces(clinic, store, tmp_path):
    ctx, records, names, path = clinic
    index_folder = records.folder / "index"
    records.index(lambda f: set(), lambda patients: lambda f: 1.0)
    assert any(index_folder.iterdir()), "a cached index of the records"
    gone, missing = delete(["clinic-001", "ghost"], records=records, graph=store)
    assert (gone, missing) == (1, ["ghost"])
    assert records.get("clinic-001") is None and "clinic-001" not in store.patient_ids()
    assert store.read("MATCH (f:RecordFinding) RETURN f") == [], "its own finding node went with its last patient"
    assert not index_folder.exists() or not any(index_folder.iterdir()), "no index cache built with it"
    rebuilt = records.index(lambda f: set(), lambda patients: lambda f: 1.0)
    assert "clinic-001" not in rebuilt.ids

    changed = {**PATIENTS[1], "present": ["Pectus excavatum"], "absent": []}
    again = tmp_path / "again.jsonl"
    again.write_text(json.dumps(changed) + "\n{broken\n")
    report = ingest([again], records=records, graph=store, names=names)
    assert report.stored == 1 and [(p.line, p.reason[:14]) for p in report.refused] == [(2, "not valid JSON")]
    links = {(x["key"], x["present"]) for x in store.patient_links("clinic-002") if x["kind"] == "finding"}
    assert links == {("pectus excavatum", True)}, "what the earlier record linked is gone"
    assert records.count() == 2 and "clinic-003" in store.patient_ids(), "nothing already stored was lost"


@pytest.mark.parametrize("allowed", [False, True])
def test_no_record_text_finding_or_id_leaves_the_machine(clinic, store, scripted_server, monkeypatch, allowed):
    ctx, _, _, _ = clinic
    sent: list[str] = []
    real_request = http.client.HTTPConnection.request

    def recorded(self, method, url, body=None, headers=None, **kwargs):
        sent.append(f"{self.host}{url} {body!r}")
        return real_request(self, method, url, body=body, headers=headers or {}, **kwargs)

    monkeypatch.setattr(http.client.HTTPConnection, "request", recorded)

    def respond(body):
        return answer_lines(answer="Marfan-like.", confidence=0.5) if asks_for_answer(body) else {"content": "ok"}

    server = scripted_server(respond)
    remote = ctx.with_overrides(
        evidence_mode="hybrid",
        sources=("pubmed", "wikipedia"),
        openai_base_url="https://llm.example.org/v1",  # off this machine: the scripted server stands in for it
        records_remote="allow" if allowed else "withhold",
        pubmed="remote",
    )
    llm = ChatOpenAI(base_url=server.base_url, api_key="t", model="scripted")
    install(Resources(remote, store=store, llm=llm))
    said = "A girl with ectopia lentis and long slender fingers: what is the most likely diagnosis?"
    result = graph.invoke({"question": said}, context=remote)
    assert result["similar"], "the diagnosis read the stored patients"
    searched = [s for s in sent if "127.0.0.1" not in s]
    assert searched, "PubMed and Wikipedia were asked (and failed offline)"
    model = [json.dumps(b) for b in server.requests]
    for marker in ("clinic-00", "Elbe", "brachydactyly", "Brachydactyly"):
        assert not any(marker in s for s in searched), f"{marker!r} reached a search"
    assert not any("Elbe" in body for body in model), "a note is never sent"
    notices = " ".join(result.get("notices") or [])
    with_patients = any(c.get("patients") for c in result["differential"])
    if allowed:  # the model may read the differential with the stored patients beside each candidate
        assert with_patients and "were not sent" not in notices and not result.get("records_differential")
    else:  # the model reads the graph's differential; the one with the records is shown, not sent
        assert not any("clinic-00" in body for body in model), "no record id reached the model"
        assert not with_patients and "were not sent to the model at llm.example.org" in notices
        assert any(c.get("patients") for c in result["records_differential"])
