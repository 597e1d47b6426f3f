"""The refresh agent's re-read of a revised paper that no longer states a finding's sentence: the finding reader
reads the revision again (a call the re-read once made with the wrong arguments, a TypeError no test reached), what
the revision still states stands, what it no longer states and was not read again is weakened. Scripted model,
real graph server, a local literature index holding the revision."""

from __future__ import annotations

from langchain_openai import ChatOpenAI

from amg.graphs.context import Context
from amg.graphs.literature_reread import reread_paper
from amg.graphs.resources import Resources
from amg.testing.pubmed_mirror import FIXTURE_TREE
from amg.testing.scripted_llm import prompt_text, requested_tool
from amg.tools.kg.records import EvidenceRecord, RelationRecord
from amg.tools.literature.index import LiteratureIndex, index_path
from amg.tools.literature.ingest import ingest_files

LACTIC = "Lactic acidosis was rare among metformin users with moderate renal impairment."  # the revision keeps it
DROPPED = "Metformin worsened renal function in these patients."  # the first version's, gone from the revision


def test_a_finding_the_revision_no_longer_states_is_read_again_and_weakened(store, scripted_server, tmp_path):
    ctx = Context(data_dir=str(tmp_path / "data"), sources="pubmed", pubmed="local")
    index = LiteratureIndex(index_path(ctx.data_path))
    ingest_files(index, [FIXTURE_TREE / "updatefiles" / "pubmed25n0003.xml.gz"], progress=lambda p, s: lambda n: None)
    index.close()

    def responder(body: dict) -> dict:
        assert requested_tool(body) == "StudyFinding", "the re-read's only model call is the finding reader's"
        return {
            "tool": "StudyFinding",
            "args": {
                "subject": "metformin",
                "relation": "no_effect_on",
                "object": "lactic acidosis",
                "population": "metformin users with moderate renal impairment",
                "sentence": LACTIC,  # what the revision now says about metformin
                "score": 8,
            },
        }

    server = scripted_server(responder)
    llm = ChatOpenAI(base_url=server.base_url, api_key="test", model="scripted", temperature=0)
    res = Resources(ctx, store=store, llm=llm)
    paper = EvidenceRecord(id="pmid:20000001", kind="pubmed", title="Metformin and lactic acidosis", pmid="20000001")
    kept = RelationRecord(
        "metformin",
        "lactic acidosis",
        type="no_effect_on",
        confidence=0.7,
        evidence_ids=[paper.id],
        score_raw=7,
        description=LACTIC,
        origin="pubmed",
        model="m",
    )
    gone = RelationRecord(
        "metformin",
        "renal function",
        type="worsens",
        confidence=0.6,
        evidence_ids=[paper.id],
        score_raw=6,
        description=DROPPED,
        origin="pubmed",
        model="m",
    )
    store.upsert(evidence=[paper], relations=[kept, gone], supports=[("metformin", paper.id)])

    result = reread_paper({"id": paper.id, "pmid": "20000001"}, res, ctx)
    res.literature.close()

    assert (result["status"], result["relations"], result["still_stated"]) == ("re-read", 2, 1)
    assert (result["read_again"], result["weakened"]) == (0, 1)
    assert [(r["source"], r["type"], r["target"]) for r in result["learned"]] == [
        ("metformin", "no_effect_on", "lactic acidosis")
    ]
    [asked] = server.requests
    assert "metformin" in prompt_text(asked).lower() and "renal function" in prompt_text(asked).lower()
    assert result["llm_calls"] == 1
    [worsens] = store.outgoing("metformin", "worsens")
    assert (worsens["props"]["status"], worsens["props"]["confidence"]) == ("weakened", 0.0)
    [stands] = store.outgoing("metformin", "no_effect_on")
    assert stands["props"]["status"] == "active" and '"event": "reread"' in stands["props"]["history"][-1]
