"""Differential diagnosis from disease-phenotype annotations, and the follow-up question that separates."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver

from amg.agents.diagnostician import differentiate, read_answers
from amg.agents.reasoner import number_evidence
from amg.graphs.context import Context
from amg.graphs.qa_graph import builder
from amg.graphs.resources import Resources, install
from amg.testing.graph_staging import set_entity_fields
from amg.testing.scripted_llm import answer_lines, asks_for_answer, asks_for_entities
from amg.tools.kg.records import EvidenceRecord, RelationRecord
from amg.tools.kg.schema import normalize_key
from amg.tools.kg.traversal.differential import Candidate, fold_subtypes, frequency_of, inherit, questions, rank

# Two look-alike diseases share fever and rash; only one has hepatosplenomegaly (nearly always),
# the other arthritis (often). A third shares fever only.
ANNOTATIONS = {
    "alpha": {"fever": 0.9, "rash": 0.8, "hepatosplenomegaly": 0.9, "headache": 0.3},
    "beta": {"fever": 0.9, "rash": 0.8, "arthritis": 0.6, "headache": 0.3},
    "gamma": {"fever": 0.9, "cough": 0.9},
}
NAMES = {k: k.title() for k in ANNOTATIONS}


def test_ranking_counts_findings_for_and_against():
    both = rank(ANNOTATIONS, NAMES, {"fever", "rash"}, set())
    assert {c.key for c in both[:2]} == {"alpha", "beta"} and both[2].key == "gamma"
    assert both[0].probability == pytest.approx(both[1].probability), "look-alikes tie"
    ruled = rank(ANNOTATIONS, NAMES, {"fever", "rash"}, {"hepatosplenomegaly"})
    assert ruled[0].key == "beta" and ruled[1].absent == ["hepatosplenomegaly"]
    assert rank(ANNOTATIONS, NAMES, {"fever", "rash", "hepatosplenomegaly"}, set())[0].key == "alpha"


def test_best_question_separates_the_leaders():
    candidates = rank(ANNOTATIONS, NAMES, {"fever", "rash"}, set())
    asked = questions(ANNOTATIONS, candidates, {"fever", "rash"})
    assert asked[0][0] == "hepatosplenomegaly", "present in one leader nearly always, in the other never"
    assert "headache" not in [f for f, _ in asked], "shared by both leaders equally: tells nothing"
    assert asked[0][1] > dict(asked).get("arthritis", 0)


def test_a_second_question_that_splits_like_the_first_is_not_asked():
    # x and its twin both tell {A, B} from C; y tells A from {B, C}: after x, y carries more than the twin
    annotations = {"a": {"x": 0.98, "x twin": 0.98, "y": 0.98}, "b": {"x": 0.98, "x twin": 0.98}, "c": {}}
    candidates = [Candidate(k, k.upper(), 1 / 3) for k in annotations]
    asked = [f for f, _ in questions(annotations, candidates, set())]
    assert sorted(asked[:2]) == ["x", "y"], "the twin adds little once x is asked"


def test_subtypes_fold_into_their_disease():
    annotations = {
        "marfan syndrome": {"f": 0.6},
        "neonatal marfan syndrome": {"f": 0.9, "g": 0.9},
        "tuberous sclerosis 1": {"f": 0.5},
        "tuberous sclerosis 2": {"f": 0.7},
        "other": {"f": 0.1},
    }
    candidates = [
        Candidate("neonatal marfan syndrome", "Neonatal Marfan syndrome", 0.3),
        Candidate("tuberous sclerosis 2", "Tuberous sclerosis 2", 0.2),
        Candidate("marfan syndrome", "Marfan syndrome", 0.2),
        Candidate("tuberous sclerosis 1", "Tuberous sclerosis 1", 0.2),
        Candidate("other", "Other", 0.1),
    ]
    ts = {"key": "tuberous sclerosis", "name": "Tuberous sclerosis", "type": "disease"}
    parents = {
        "neonatal marfan syndrome": [{"key": "marfan syndrome", "name": "Marfan syndrome", "type": "disease"}],
        "tuberous sclerosis 1": [ts],
        "tuberous sclerosis 2": [ts],
        "other": [{"key": "disease", "name": "Disease", "type": "disease"}],
    }
    folded, mixed = fold_subtypes(candidates, annotations, parents)
    assert [(c.name, c.probability, c.subtypes) for c in folded] == [
        ("Marfan syndrome", 0.5, ["neonatal marfan syndrome"]),
        ("Tuberous sclerosis", 0.4, ["tuberous sclerosis 2", "tuberous sclerosis 1"]),
        ("Other", 0.1, []),
    ], "a general parent that is not a candidate and not in the name takes nothing"
    assert mixed["marfan syndrome"]["f"] == pytest.approx((0.3 * 0.9 + 0.2 * 0.6) / 0.5)
    assert mixed["tuberous sclerosis"]["f"] == pytest.approx((0.2 * 0.7 + 0.2 * 0.5) / 0.4)


def test_follow_up_answers_are_read():
    asked = [
        {"finding": "hepatosplenomegaly", "name": "Hepatosplenomegaly"},
        {"finding": "arthritis", "name": "Arthritis"},
    ]
    assert read_answers("Yes", asked[:1]) == {"hepatosplenomegaly": True}
    assert read_answers("There is arthritis but no hepatosplenomegaly.", asked) == {
        "arthritis": True,
        "hepatosplenomegaly": False,
    }
    assert read_answers("not sure", asked) == {}
    assert frequency_of(0.4 + 0.6 * 0.5) == pytest.approx(0.5)


@pytest.fixture
def case_graph(store):
    ev = EvidenceRecord(id="vocab:hpoa:test", kind="vocabulary")
    rels = [
        RelationRecord(f.title(), d.title(), "symptom_of", round(0.4 + 0.6 * p, 3), [ev.id], None, "", "vocabulary:hpo")
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
    out = differentiate(entities, case_graph, {})
    assert {c["key"] for c in out["differential"][:2]} == {"alpha", "beta"}
    assert out["follow_up"][0]["finding"] == "hepatosplenomegaly"
    assert out["follow_up"][0]["question"] == "Does the patient have hepatosplenomegaly?"
    assert out["differential"][0]["evidence_ids"] == ["vocab:hpoa:test"], "the annotations behind the candidate"
    numbered = number_evidence([], [], case_graph, [], out["differential"])
    assert [e["id"] for e in numbered] == ["vocab:hpoa:test"], "a case's candidates can be cited"
    settled = differentiate(entities, case_graph, {"hepatosplenomegaly": True})
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
            RelationRecord("Rash", "Skin abnormality", "is_a", 1.0, [ev.id], None, "", "vocabulary:hpo"),
            RelationRecord("Skin abnormality", "Alpha", "symptom_of", 0.94, [ev.id], None, "", "vocabulary:hpo"),
            RelationRecord("Skin abnormality", "Beta", "symptom_of", 0.4, [ev.id], None, "", "vocabulary:hpo"),
        ],
    )
    asked = [f["finding"] for f in differentiate(entities, case_graph, {})["follow_up"]]
    assert asked and "skin abnormality" not in asked, "a rash is a skin abnormality"


def test_a_question_that_names_its_disease_gets_no_differential(case_graph):
    entities = [
        {"key": "fever", "name": "fever", "type": "phenotype"},
        {"key": "rash", "name": "rash", "type": "phenotype"},
        {"key": "alpha", "name": "Alpha", "type": "disease"},
    ]
    assert differentiate(entities, case_graph, {}) == {"differential": [], "follow_up": []}


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
        RelationRecord(f, d, "symptom_of", round(0.4 + 0.6 * p, 3), [ev.id], None, "", "vocabulary:hpo")
        for d, findings in CASES.items()
        for f, p in findings.items()
    ]
    store.upsert(evidence=[ev], relations=rels)
    for finding in {f for findings in CASES.values() for f in findings}:
        set_entity_fields(store, normalize_key(finding), {"type": "phenotype"})
    return store


def test_a_case_in_a_clinicians_words_is_read(hpo_cases):
    said = "Long slender fingers, dislocated lenses of both eyes and a dilated aortic root."
    out = differentiate([], hpo_cases, {}, said)
    assert out["differential"][0]["name"] == "Marfan-like"
    assert out["differential"][0]["present"] == ["Aortic root aneurysm", "Arachnodactyly", "Ectopia lentis"]


def test_a_negated_finding_counts_against(hpo_cases):
    said = "Long slender fingers, no lens dislocation, and a dilated aortic root."
    out = differentiate(
        [{"key": "ectopia lentis", "name": "lens dislocation", "type": "phenotype"}], hpo_cases, {}, said
    )
    assert out["differential"][0]["name"] == "Loeys-like", "the model's entity for a negated finding is no finding"
    marfan = next(c for c in out["differential"] if c["name"] == "Marfan-like")
    assert marfan["absent"] == ["Ectopia lentis"] and "Ectopia lentis" not in marfan["present"]


def test_a_stated_finding_is_never_asked(hpo_cases):
    said = "Cafe-au-lait spots and freckling in both axillae."
    out = differentiate([{"key": "freckling", "name": "freckling", "type": "phenotype"}], hpo_cases, {}, said)
    assert {c["name"] for c in out["differential"][:2]} == {"NF-like", "Legius-like"}
    asked = {f["finding"] for f in out["follow_up"]}
    assert asked, "the two leaders are close: something is asked"
    assert not asked & {"multiple cafe au lait spot", "cafe au lait spot", "axillary freckling", "freckling"}, (
        "multiple cafe-au-lait spots would split them best, but the case has said cafe-au-lait spots"
    )


def test_a_general_finding_counts_for_a_disease_annotated_with_a_finer_one(hpo_cases):
    out = differentiate([], hpo_cases, {}, "Cafe-au-lait spots, freckling in both axillae and Lisch nodules.")
    nf = next(c for c in out["differential"] if c["name"] == "NF-like")
    assert "Cafe-au-lait spot" in nf["present"], "a patient with multiple cafe-au-lait spots has cafe-au-lait spots"
    assert nf["frequencies"]["Cafe-au-lait spot"] == pytest.approx(0.9, abs=0.01)
    assert inherit({"d": {"x": 0.9}}, {"y": {"x", "z"}, "w": {"v"}}) == {"d": {"x": 0.9, "y": 0.9}}


def test_an_answer_in_other_words_is_read():
    asked = [
        {"finding": "ectopia lentis", "name": "Ectopia lentis"},
        {"finding": "arachnodactyly", "name": "Arachnodactyly"},
    ]
    assert read_answers("No lens dislocation, but he has spider fingers.", asked) == {
        "ectopia lentis": False,
        "arachnodactyly": True,
    }
    assert read_answers(
        "no mitral regurgitation", [{"finding": "mitral regurgitation", "name": "Mitral regurgitation"}]
    ) == {"mitral regurgitation": False}
    assert read_answers("No", asked[:1]) == {"ectopia lentis": False}


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


@pytest.mark.parametrize("module", ["benchmarks.differential", "benchmarks.differential_paraphrase"])
def test_a_graph_with_no_annotated_disease_is_a_one_line_note(module, monkeypatch, capsys):
    import importlib
    import json

    class Unseeded:
        def __init__(self, context):
            self.store = type("Store", (), {"phenotype_annotations": staticmethod(lambda: [])})()
            self.linker = None

        def close(self):
            pass

    bench = importlib.import_module(module)
    monkeypatch.setattr(bench, "Resources", Unseeded)
    monkeypatch.setattr("sys.argv", [module])
    bench.main()
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "seed it first" in json.loads(out[0])["skipped"]
