"""A claim checked against a three-abstract index with a scripted model: one paper supports it, one contradicts
it, one does not address it; the verdict is "mixed" with both papers' sentences quoted by number, each paper's
finding is learned with its sentences, and the offline pass answers from what the hybrid pass learned."""

from __future__ import annotations

import pytest
from langchain_openai import ChatOpenAI

from amg.cli.qa import answered_first
from amg.graphs.context import Context
from amg.graphs.qa_graph import graph
from amg.graphs.resources import Resources, install
from amg.testing.claim_replies import asks_for_findings, asks_for_stance, paper_title, stance
from amg.testing.fakes import DATA
from amg.tools.kg.records import EntityRecord
from amg.tools.literature.index import LiteratureIndex
from amg.tools.literature.ingest import ingest_files

CLAIM = "Vitamin D supplements prevent fractures in older adults"
SUPPORTING = "Vitamin D supplementation reduced the incidence of hip fractures by 22% compared with placebo."
CONTRADICTING = "CONCLUSIONS Annual high-dose oral vitamin D did not prevent fractures in older women."


def responder(body: dict) -> dict:
    title = paper_title(body)
    if asks_for_stance(body):
        if title.startswith("Vitamin D supplementation"):
            return stance("supports", (2,))
        if title.startswith("Annual high-dose"):
            return stance("contradicts", (2, 3))
        return stance("neither")
    if asks_for_findings(body):
        if title.startswith("Vitamin D supplementation"):
            return {"content": "2 | Vitamin D supplementation | worsens | hip fractures"}
        return {"content": "3 | high-dose oral vitamin D | no_effect_on | fractures\n2 | vitamin D | worsens | women"}
    return {"content": ""}


@pytest.fixture
def check(store, scripted_server, tmp_path, monkeypatch):
    monkeypatch.setattr("amg.graphs.claim_path.extraction_reliability", lambda model: 1.0)
    index = LiteratureIndex(tmp_path / "pubmed")
    ingest_files(index, [DATA / "scifact_corpus_sample.jsonl"], lambda p, s: lambda n: None, any_paper=True)
    server = scripted_server(responder)

    def run(payload: dict, show=None, **context) -> dict:
        ctx = Context(data_dir=str(tmp_path), sources="pubmed", **context)
        llm = ChatOpenAI(base_url=server.base_url, api_key="test", model="scripted", temperature=0)
        install(Resources(ctx, store=store, llm=llm, literature=index))
        return answered_first(graph, payload, ctx, show) if show else graph.invoke(payload, context=ctx)

    yield run, server
    index.close()


def _stances(result: dict) -> dict:
    return {p["id"]: (p["stance"], p["rationale"]) for p in result["papers"]}


def test_one_paper_supports_one_contradicts_and_the_verdict_is_mixed(check):
    run, server = check
    result = run({"question": CLAIM}, evidence_mode="hybrid")
    assert result["kind"] == "claim" and result["verdict"]["verdict"] == "mixed"
    assert result["answer"] == "Mixed evidence: 1 paper supports the claim, 1 contradicts it."
    stances = _stances(result)
    assert stances["s2:1001"] == ("supports", [2]) and stances["s2:1002"] == ("contradicts", [2, 3])
    quoted = {c["id"]: [(s["n"], s["text"]) for s in c["sentences"]] for c in result["citations"]}
    assert quoted["s2:1001"] == [(2, SUPPORTING)]
    assert quoted["s2:1002"][1] == (3, CONTRADICTING)
    reply = result["messages"][-1].content
    assert f'sentence 2: "{SUPPORTING}"' in reply and f'sentence 3: "{CONTRADICTING}"' in reply
    assert "https://api.semanticscholar.org/CorpusID:1001" in reply and "pubmed.ncbi" not in reply
    unrelated = [p for p in result["papers"] if p["id"] == "s2:1003"]
    assert not unrelated or unrelated[0]["stance"] == "neither"
    learned = {(r["source"], r["type"], r["target"]) for r in result["new_relations"]}
    assert ("Vitamin D supplementation", "worsens", "hip fractures") in learned
    assert ("high-dose oral vitamin D", "no_effect_on", "fractures") in learned
    kept = next(r for r in result["new_relations"] if r["target"] == "fractures")
    assert [(q["paper"], q["n"]) for q in kept["quotes"]] == [("s2:1002", 2), ("s2:1002", 3)]


def test_amg_ask_shows_the_verdict_of_a_stated_claim_and_its_json_lists_the_stances(check):
    from amg.cli.answer_format import json_result

    run, _ = check
    shown: list[str] = []
    result = run({"question": CLAIM}, show=shown.append, evidence_mode="hybrid", learn="off")
    assert len(shown) == 1 and shown[0].startswith("Mixed evidence: 1 paper supports the claim, 1 contradicts it.")
    checked = json_result(result)["claim_check"]
    assert checked["verdict"] == "mixed" and checked["claim"] == CLAIM
    papers = {p["id"]: (p["stance"], p["sentences"]) for p in checked["papers"]}
    assert papers["s2:1001"] == ("supports", [2]) and papers["s2:1002"] == ("contradicts", [2, 3])
    assert [q["n"] for q in checked["papers"][1]["quotes"]] == checked["papers"][1]["sentences"]


def test_the_offline_pass_answers_from_what_the_hybrid_pass_learned(check):
    run, server = check
    hybrid = run({"question": CLAIM}, evidence_mode="hybrid")
    before = len(server.requests)
    offline = run({"question": CLAIM}, evidence_mode="offline")
    assert offline["verdict"]["verdict"] == hybrid["verdict"]["verdict"] == "mixed"
    assert {p["source"] for p in offline["papers"]} == {"graph"}
    assert _stances(offline)["s2:1001"] == ("supports", [2])
    assert _stances(offline)["s2:1002"] == ("contradicts", [2, 3])
    quoted = {c["id"]: [s["text"] for s in c["sentences"]] for c in offline["citations"]}
    assert quoted["s2:1002"][1] == CONTRADICTING and quoted["s2:1001"] == [SUPPORTING]
    assert not offline["new_relations"], "what the graph read back is not learned again"
    asked = [asks_for_stance(b) for b in server.requests[before:]]
    assert asked == [True, True], "offline reads the two papers the graph holds, nothing else"


def test_a_related_claim_is_answered_offline_from_the_same_findings(check):
    run, _ = check
    run({"question": CLAIM}, evidence_mode="hybrid")
    related = run({"question": "Vitamin D prevents hip fractures", "check": True}, evidence_mode="offline")
    assert related["verdict"]["verdict"] == "mixed" and len(related["citations"]) == 2


def test_a_claim_nothing_in_the_index_addresses_has_not_enough_evidence(check):
    run, server = check
    result = run({"question": "Quantum tunnelling speeds up photosynthesis in algae", "check": True}, learn="off")
    assert result["verdict"]["verdict"] == "not enough evidence" and result["citations"] == []
    assert not any(asks_for_stance(b) for b in server.requests), "no paper comes close: the model is not asked"


def test_the_models_stance_prior_turns_a_reluctant_contradiction_into_one(check, monkeypatch):
    run, server = check
    # The scripted model leans to "supports" on the contradicting paper (0.45; the other two 0.275 each), as the
    # 1.5B does; its prior says how readily it says each stance.
    prior = {"supports": 0.6, "contradicts": 0.1, "neither": 0.3}
    monkeypatch.setattr("amg.graphs.claim_path.stance_prior", lambda model: prior if model == "scripted" else None)

    def leaning(body: dict) -> dict:
        if asks_for_stance(body) and paper_title(body).startswith("Annual high-dose"):
            return stance("supports", (2, 3), p=0.45)
        return stance("neither", p=0.9) if asks_for_stance(body) else {"content": ""}

    server.responder = leaning
    weights = {"supports": 0.45 / 0.6, "contradicts": 0.275 / 0.1, "neither": 0.275 / 0.3}
    result = run({"question": CLAIM}, evidence_mode="hybrid", learn="off")
    read = next(p for p in result["papers"] if p["id"] == "s2:1002")
    assert read["stance"] == "contradicts" and read["rationale"] == [2, 3]
    assert read["said"]["supports"] == pytest.approx(0.45, abs=1e-3)
    assert read["probabilities"]["contradicts"] == pytest.approx(
        weights["contradicts"] / sum(weights.values()), abs=1e-3
    )
    assert result["verdict"]["verdict"] == "contradicted"
    monkeypatch.setattr("amg.graphs.claim_path.stance_prior", lambda model: None)
    assert run({"question": CLAIM}, evidence_mode="hybrid", learn="off")["verdict"]["verdict"] == "not enough evidence"


def test_a_paper_with_no_finding_written_is_read_again_offline_from_the_sentences_kept(check, store):
    """No finding had grounds to be written (the reply names nothing usable): each paper the check read is kept with
    the sentences the stance step was shown, so the offline pass reaches the same verdict from the same sentences."""
    run, server = check
    store.upsert(entities=[EntityRecord("Vitamin D", "drug")])  # the claim's entity, as the vocabularies spot it
    server.responder = lambda body: {"content": "no findings"} if asks_for_findings(body) else responder(body)
    hybrid = run({"question": CLAIM}, evidence_mode="hybrid")
    assert [e["key"] for e in hybrid["entities"]] == ["vitamin d"]
    assert hybrid["verdict"]["verdict"] == "mixed" and not hybrid["new_relations"]
    read = {p["id"] for p in hybrid["papers"] if p["named"]}
    assert {p["id"] for p in store.papers_read(["vitamin d"], 10)} >= read >= {"s2:1001", "s2:1002"}
    server.responder = responder
    before = len(server.requests)
    offline = run({"question": CLAIM}, evidence_mode="offline")
    assert offline["verdict"]["verdict"] == "mixed" and {p["source"] for p in offline["papers"]} == {"graph"}
    assert _stances(offline)["s2:1002"] == ("contradicts", [2, 3])
    shown = {p["id"]: [s["n"] for s in p["shown"]] for p in hybrid["papers"]}
    assert {p["id"]: [s["n"] for s in p["shown"]] for p in offline["papers"]}["s2:1002"] == shown["s2:1002"]
    assert not any(asks_for_findings(b) for b in server.requests[before:]), "what the graph read back is not learned"
