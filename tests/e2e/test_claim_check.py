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
from amg.testing.claim_replies import OPPOSITE_ASKED, asks_for_findings, asks_for_stance, paper_title, stance, yes_no
from amg.testing.fakes import DATA
from amg.testing.scripted_llm import last_turn
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
            return stance(body, "supports")
        if title.startswith("Annual high-dose"):
            return stance(body, "contradicts")
        return stance(body, "neither")
    if asks_for_findings(body):
        if title.startswith("Vitamin D supplementation"):
            return {"content": "2 | Vitamin D supplementation | worsens | hip fractures"}
        return {"content": "3 | high-dose oral vitamin D | no_effect_on | fractures\n2 | vitamin D | worsens | women"}
    return {"content": ""}


@pytest.fixture
def check(store, scripted_server, tmp_path, monkeypatch):
    monkeypatch.setattr("amg.graphs.claim_path.extraction_reliability", lambda model: 1.0)
    index = LiteratureIndex(tmp_path / "pubmed")
    ingest_files(index, [DATA / "scifact_corpus_sample.jsonl"], progress=lambda p, s: lambda n: None, any_paper=True)
    server = scripted_server(responder)

    def run(payload: dict, show=None, **context) -> dict:
        ctx = Context(data_dir=str(tmp_path), sources="pubmed", **context)
        llm = ChatOpenAI(base_url=server.base_url, api_key="test", model="scripted", temperature=0)
        install(Resources(ctx, store=store, llm=llm, literature=index))
        return answered_first(graph, payload, context=ctx, show=show) if show else graph.invoke(payload, context=ctx)

    yield run, server
    index.close()


def _stances(result: dict) -> dict:
    return {p["id"]: (p["stance"], p["rationale"]) for p in result["papers"]}


def likeliest(paper: dict) -> list[int]:
    """The numbers of the shown sentences quoted as the rationale, in the abstract's order: the likeliest to settle
    the claim, and the next when it is likelier than not."""
    ranked = sorted(paper["shown"], key=lambda s: -s["settles"])
    return sorted(s["n"] for k, s in enumerate(ranked[:2]) if k == 0 or s["settles"] >= 0.5)


def test_one_paper_supports_one_contradicts_and_the_verdict_is_mixed(check):
    run, server = check
    result = run({"question": CLAIM}, evidence_mode="hybrid")
    assert result["kind"] == "claim" and result["verdict"]["verdict"] == "mixed"
    assert result["answer"] == "Mixed evidence: 1 paper supports the claim, 1 contradicts it."
    stances, read = _stances(result), {p["id"]: p for p in result["papers"]}
    assert stances["s2:1001"] == ("supports", likeliest(read["s2:1001"]))
    assert stances["s2:1002"] == ("contradicts", likeliest(read["s2:1002"]))
    quoted = {c["id"]: [(s["n"], s["text"]) for s in c["sentences"]] for c in result["citations"]}
    assert (2, SUPPORTING) in quoted["s2:1001"] and (3, CONTRADICTING) in quoted["s2:1002"]
    reply = result["messages"][-1].content
    assert f'sentence 2: "{SUPPORTING}"' in reply and f'sentence 3: "{CONTRADICTING}"' in reply
    assert "https://api.semanticscholar.org/CorpusID:1001" in reply and "pubmed.ncbi" not in reply
    unrelated = [p for p in result["papers"] if p["id"] == "s2:1003"]
    assert not unrelated or unrelated[0]["stance"] == "neither"
    learned = {(r["source"], r["type"], r["target"]) for r in result["new_relations"]}
    assert ("Vitamin D supplementation", "worsens", "hip fractures") in learned
    assert ("high-dose oral vitamin D", "no_effect_on", "fractures") in learned
    kept = next(r for r in result["new_relations"] if r["target"] == "fractures")
    read_from = sorted(s["n"] for s in sorted(read["s2:1002"]["shown"], key=lambda s: -s["settles"])[:2])
    assert [(q["paper"], q["n"]) for q in kept["quotes"]] == [("s2:1002", n) for n in read_from], (
        "a finding is read from, and kept with, the two sentences likeliest to settle the claim"
    )
    assert 3 in likeliest(read["s2:1002"]), "the conclusion that settles the claim is quoted"


def test_amg_ask_shows_the_verdict_of_a_stated_claim_and_its_json_lists_the_stances(check):
    from amg.cli.answer_format import json_result

    run, _ = check
    shown: list[str] = []
    result = run({"question": CLAIM}, show=shown.append, evidence_mode="hybrid", learn="off")
    assert len(shown) == 1 and shown[0].startswith("Mixed evidence: 1 paper supports the claim, 1 contradicts it.")
    checked = json_result(result)["claim_check"]
    assert checked["verdict"] == "mixed" and checked["claim"] == CLAIM
    papers = {p["id"]: (p["stance"], p["sentences"]) for p in checked["papers"]}
    read = {p["id"]: p for p in result["papers"]}
    assert papers["s2:1001"] == ("supports", likeliest(read["s2:1001"]))
    assert papers["s2:1002"] == ("contradicts", likeliest(read["s2:1002"]))
    assert checked["papers"][1]["opposite"] == "It is not true that " + CLAIM
    assert [q["n"] for q in checked["papers"][1]["quotes"]] == checked["papers"][1]["sentences"]


def test_the_offline_pass_answers_from_what_the_hybrid_pass_learned(check):
    run, server = check
    hybrid = run({"question": CLAIM}, evidence_mode="hybrid")
    before = len(server.requests)
    offline = run({"question": CLAIM}, evidence_mode="offline")
    assert offline["verdict"]["verdict"] == hybrid["verdict"]["verdict"] == "mixed"
    assert {p["source"] for p in offline["papers"]} == {"graph"}
    assert _stances(offline) == {p["id"]: (p["stance"], p["rationale"]) for p in hybrid["papers"] if p["named"]}
    quoted = {c["id"]: [s["text"] for s in c["sentences"]] for c in offline["citations"]}
    assert CONTRADICTING in quoted["s2:1002"] and SUPPORTING in quoted["s2:1001"]
    assert not offline["new_relations"], "what the graph read back is not learned again"
    asked = [asks_for_stance(b) for b in server.requests[before:]]
    assert asked == [True] * 5, "offline writes the opposite once and reads the two papers the graph holds, twice each"


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


def test_a_paper_the_model_says_shows_both_statements_counts_for_the_one_it_backs_more(check):
    """As the 1.5B does on a contradicting paper, the scripted model says "yes" (0.55) to the claim too, and more
    (0.8) to its opposite: the paper contradicts the claim. One that says "no" to both does not address it."""
    run, server = check

    def leaning(body: dict) -> dict:
        if not asks_for_stance(body) or OPPOSITE_ASKED in last_turn(body):
            return stance(body, "neither") if asks_for_stance(body) else {"content": ""}
        if paper_title(body).startswith("Annual high-dose"):
            return yes_no(0.8 if "Statement: It is not true" in last_turn(body) else 0.55)
        return yes_no(0.3)

    server.responder = leaning
    result = run({"question": CLAIM}, evidence_mode="hybrid", learn="off")
    read = {p["id"]: p for p in result["papers"]}
    assert read["s2:1002"]["stance"] == "contradicts" and read["s2:1002"]["said"] == {"claim": 0.55, "opposite": 0.8}
    assert read["s2:1002"]["probabilities"] == pytest.approx(
        {"supports": 0.55 * 0.2, "contradicts": 0.8 * 0.45, "neither": 0.55 * 0.8 + 0.45 * 0.2}, abs=1e-4
    )
    assert read["s2:1001"]["stance"] == "neither", "no to the claim and to its opposite (0.3 < ADDRESSED)"
    assert result["verdict"]["verdict"] == "contradicted"
    assert [c["id"] for c in result["citations"]] == ["s2:1002"]


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
    assert _stances(offline)["s2:1002"] == _stances(hybrid)["s2:1002"]
    shown = {p["id"]: [s["n"] for s in p["shown"]] for p in hybrid["papers"]}
    assert {p["id"]: [s["n"] for s in p["shown"]] for p in offline["papers"]}["s2:1002"] == shown["s2:1002"]
    assert not any(asks_for_findings(b) for b in server.requests[before:]), "what the graph read back is not learned"
