"""The literature kept current, end to end, with no network: a loopback server holds NLM's layout; the first
full load; a research question answered citing a paper, its finding learned; a later sync brings the update
that retracts that paper; asked again, the answer says so and no longer rests on it; `amg kg show` marks the
finding retracted with its history; `amg refresh` re-reads the paper an update revised. Scripted model, real
graph server, real HTTP."""

from __future__ import annotations

import json
import shutil
from types import SimpleNamespace

import pytest
from langchain_openai import ChatOpenAI

from amg.cli.answer_format import json_result
from amg.cli.build import _refresh
from amg.cli.evidence_picture import render
from amg.cli.kg import _show
from amg.cli.pubmed_sync import sync_and_report
from amg.graphs.context import Context
from amg.graphs.qa_graph import graph
from amg.graphs.reply import chat_reply
from amg.graphs.resources import Resources, install
from amg.testing.pubmed_mirror import FIXTURE_TREE, serve
from amg.testing.scripted_llm import asks_for_answer, requested_tool
from amg.tools.evidence.finder import EvidenceFinder
from amg.tools.evidence.pubmed_sources import LocalPubMed, PubMedSources
from amg.tools.kg.records import EvidenceRecord, RelationRecord
from tests.e2e.test_literature_loop import QUESTION, VERDICTS, responder

LACTIC = "Lactic acidosis was rare among metformin users with moderate renal impairment."
UPDATES = ("pubmed25n0003.xml.gz", "pubmed25n0004.xml.gz")


@pytest.fixture
def mirror(tmp_path):
    """NLM's tree on a loopback http.server, at first without the update files (they come later)."""
    tree = shutil.copytree(FIXTURE_TREE, tmp_path / "tree")
    held = tmp_path / "later"
    held.mkdir()
    for name in UPDATES:
        for suffix in ("", ".md5"):
            shutil.move(tree / "updatefiles" / (name + suffix), held / (name + suffix))
    with serve(tree) as url:
        yield url, lambda: [shutil.copy(p, tree / "updatefiles") for p in held.iterdir()]


def test_a_retracted_paper_is_cited_as_such_and_no_longer_rested_on(store, scripted_server, mirror, tmp_path, capsys):
    url, publish_updates = mirror
    ctx = Context(data_dir=str(tmp_path / "data"), sources="pubmed", pubmed="local", pubmed_mirror=url, tau=0.3)
    assert sync_and_report(SimpleNamespace(base_url=url, baseline=True), ctx, lambda: store) == 0
    assert "2 file(s) fetched and ingested" in capsys.readouterr().out

    server = scripted_server(responder)
    llm = ChatOpenAI(base_url=server.base_url, api_key="test", model="scripted", temperature=0)
    res = Resources(ctx, store=store, llm=llm)
    res.evidence = EvidenceFinder(pubmed=PubMedSources("local", None, local=LocalPubMed(res.literature)))
    install(res)
    # what the graph learned earlier from a paper an update will revise (the revision keeps its sentence)
    lactic = EvidenceRecord(id="pmid:20000001", kind="pubmed", title="Metformin and lactic acidosis", pmid="20000001")
    learned = RelationRecord(
        "metformin",
        "lactic acidosis",
        type="no_effect_on",
        confidence=0.7,
        evidence_ids=[lactic.id],
        score_raw=7,
        description=LACTIC,
        origin="pubmed",
        model="m",
    )
    store.upsert(evidence=[lactic], relations=[learned], supports=[("metformin", lactic.id)])

    before = graph.invoke({"question": QUESTION, "options": VERDICTS}, context=ctx)
    assert [(c["pmid"], c.get("status")) for c in before["citations"]] == [("10354335", None)]
    assert before["confidence_basis"]["support"] > 0 and "rests_on" not in before["confidence_basis"]
    [finding] = store.outgoing("medical student", "improves")
    assert finding["props"]["evidence_ids"] == ["pmid:10354335"] and finding["props"]["status"] == "active"

    publish_updates()
    assert sync_and_report(SimpleNamespace(base_url=None, baseline=False), ctx, lambda: store) == 0
    said = capsys.readouterr().out
    assert "2 file(s) fetched and ingested, 0 already ingested, 0 failed" in said
    assert "records: added 1, revised 2, deleted 1, retracted 1" in said
    assert "graph: 1 paper(s) it cites withdrawn (1 relation(s) weakened, history kept), 1 revised paper(s)" in said

    asked = len(server.requests)
    after = graph.invoke({"question": QUESTION, "options": VERDICTS}, context=ctx)
    assert [(c["pmid"], c.get("status")) for c in after["citations"]] == [("10354335", "retracted")]
    basis = after["confidence_basis"]
    assert basis["support"] == 0.0 and "withdrawn (PMID 10354335 retracted)" in basis["rests_on"]
    assert after["confidence"] < before["confidence"]
    reply = chat_reply(after)
    assert "[1] RETRACTED: " in reply and "does not rest on it" in reply
    assert json_result(after)["citations"][0]["status"] == "retracted"
    assert "<b class='withdrawn'>RETRACTED</b>" in render(after)
    answer_prompt = next(b for b in server.requests[asked:] if asks_for_answer(b))
    assert "RETRACTED: do not rely on it" in str(answer_prompt["messages"]), "the model is told"
    assert not any(requested_tool(b) == "StudyFinding" for b in server.requests[asked:]), "nothing learned from it"
    [finding] = store.outgoing("medical student", "improves")
    assert (finding["props"]["status"], finding["props"]["confidence"]) == ("weakened", 0.0)

    _show(SimpleNamespace(entity="medical students", limit=25), res)
    shown = capsys.readouterr().out
    assert "0.00  medical students -improves-> quality assurance programmes  [pmid:10354335 RETRACTED]" in shown
    assert "pmid:10354335 RETRACTED: this finding no longer counts; its history:" in shown
    history = shown.split("no longer counts", 1)[1]
    learned_at = json.loads(finding["props"]["history"][0])["confidence"]
    assert "created" in history and f"retracted   {learned_at:.2f} -> 0.00" in history
    assert "(PMID 10354335 was retracted (PubMed marks it Retracted Publication))" in history

    _refresh(SimpleNamespace(every=None, limit=5), ctx)
    refreshed = capsys.readouterr().out
    assert "re-read 1 revised paper(s):" in refreshed
    assert (
        "pmid:20000001 Metformin and lactic acidosis in renal impairment.: 1 relation(s) rest on it; "
        "1 still stated, 0 read again, 0 weakened" in refreshed
    )
    assert store.reread_queue(10) == [] and "eGFR-guided" in store.evidence(["pmid:20000001"])[0]["snippet"]
    [kept] = store.outgoing("metformin", "no_effect_on")
    assert kept["props"]["confidence"] == 0.7 and '"event": "reread"' in kept["props"]["history"][-1]
