"""Build and refresh agents: scripted LLM, recorded PubMed, real local Bolt server."""

from __future__ import annotations

import json
import threading
import urllib.error
from types import SimpleNamespace

import pytest
from filelock import FileLock
from langchain_openai import ChatOpenAI

from amg.cli.build import _refresh
from amg.graphs import build_graph, refresh_graph
from amg.graphs.context import Context
from amg.graphs.resources import Resources, install
from amg.testing.fakes import RecordedEntrez
from amg.testing.graph_staging import set_entity_fields
from amg.testing.scripted_llm import prompt_text, requested_tool
from amg.tools.evidence.finder import EvidenceFinder
from amg.tools.evidence.pubmed import PubMedClient
from amg.tools.evidence.request_cache import RequestCache
from amg.tools.kg.records import EvidenceRecord, RelationRecord


class Scores:
    """Scripted scorer: every entity 'treats' Target with the current score."""

    def __init__(self):
        self.score = 8
        self.while_scoring = lambda: None  # runs while the scorer holds the request (tests use it to interleave)

    def __call__(self, body):
        tool, prompt = requested_tool(body), prompt_text(body)
        name = prompt.split('entity "', 1)[1].split('"', 1)[0] if 'entity "' in prompt else "x"
        if tool == "EntityAssessment":
            self.while_scoring()
            return {
                "tool": tool,
                "args": {
                    "description": f"About {name}.",
                    "description_score": 7,
                    "relations": [
                        {
                            "sentence": f"{name} is recommended as the first-line drug for type 2 diabetes mellitus.",
                            "relation": "treats",
                            "other": "Type 2 diabetes mellitus",
                            "score": self.score,
                        }
                    ],
                },
            }
        return {"content": "ok"}


class SwitchableEntrez(RecordedEntrez):
    down_for: set[str] = set()

    def __call__(self, endpoint, params):
        if any(name in str(params.get("term", "")).lower() for name in self.down_for):
            raise urllib.error.URLError("network down")
        return super().__call__(endpoint, params)


@pytest.fixture
def env(store, scripted_server, tmp_path, monkeypatch):
    monkeypatch.setattr(
        "amg.graphs.resources.extraction_reliability", lambda model: 1.0
    )  # a measured, perfect extractor
    scores = Scores()
    server = scripted_server(scores)
    entrez = SwitchableEntrez()
    entrez.down_for = set()
    ctx = Context(data_dir=str(tmp_path), sources="pubmed", stale_days=30)
    llm = ChatOpenAI(base_url=server.base_url, api_key="t", model="scripted")
    finder = EvidenceFinder(
        pubmed=PubMedClient("", "", cache=RequestCache(tmp_path / "c.sqlite"), transport=entrez), cooldown_s=0
    )
    install(Resources(ctx, store=store, llm=llm, evidence=finder))
    return SimpleNamespace(ctx=ctx, scores=scores, entrez=entrez, server=server, tmp=tmp_path)


def test_build_reruns_as_noop_and_resumes_after_failure(env, store):
    topics = ["Metformin", "metformin", "Aspirin", "", "x" * 400]
    env.entrez.down_for = {"aspirin"}
    first = build_graph.graph.invoke({"topics": topics}, context=env.ctx)["summary"]
    assert first["entities_built"] == 1 and first["relations_added"] == 1
    reasons = {f["entity"][:10]: f["status"] for f in first["failures"]}
    assert reasons == {"Aspirin": "failed", "": "rejected", "x" * 10: "rejected"}
    assert len(store.all_relations()) == 1, "no relation without evidence"
    env.entrez.down_for = set()
    second = build_graph.graph.invoke({"topics": topics}, context=env.ctx)["summary"]
    assert second["entities_built"] == 1 and second["skipped_already_done"] == 1, "only the failed item is redone"
    calls = len(env.server.requests)
    third = build_graph.graph.invoke({"topics": topics}, context=env.ctx)["summary"]
    assert third["entities_built"] == 0 and len(env.server.requests) == calls
    assert list((env.tmp / "runs").glob("build-*.json"))


def test_refresh_rescores_with_history_and_marks_weakened(env, store):
    build_graph.graph.invoke({"topics": ["Metformin"]}, context=env.ctx)
    set_entity_fields(store, "metformin", {"refreshed_at": "2020-01-01T00:00:00.000000Z", "hits": 3})
    env.scores.score = 6
    summary = refresh_graph.graph.invoke({"limit": 5}, context=env.ctx)["summary"]
    assert summary["refreshed"] == 1
    row = store.relation_history("metformin")[0]
    events = [json.loads(h) for h in row["history"]]
    assert row["confidence"] == 0.6 and events[-1]["previous"] == 0.8 and events[-1]["evidence_ids"]
    esearch = [p for e, p in env.entrez.requests if e == "esearch"][-1]
    assert esearch["mindate"] == "2020/01/01", "only articles newer than the last refresh"
    # support vanishes: the relation is marked, not dropped
    set_entity_fields(store, "metformin", {"refreshed_at": "2020-01-01T00:00:00.000000Z"})
    env.scores.score = 2
    refresh_graph.graph.invoke({"limit": 5}, context=env.ctx)
    row = store.relation_history("metformin")[0]
    assert row["status"] == "weakened" and row["confidence"] == 0.2
    assert json.loads(row["history"][-1])["event"] == "weakened"


def test_refresh_and_qa_write_on_the_same_entity_lose_nothing(env, store):
    build_graph.graph.invoke({"topics": ["Metformin"]}, context=env.ctx)
    set_entity_fields(store, "metformin", {"refreshed_at": "2020-01-01T00:00:00.000000Z", "hits": 1})
    errors, halfway, qa_done = [], threading.Barrier(2, timeout=60), threading.Event()

    def qa_writes():
        try:
            for i in range(10):
                if i == 5:
                    halfway.wait()  # the refresher has claimed metformin and is scoring it
                store.upsert(
                    evidence=[EvidenceRecord(id=f"pmid:9{i}", kind="pubmed")],
                    relations=[
                        RelationRecord(
                            "Metformin", f"Condition {i}", type="treats", confidence=0.7, evidence_ids=[f"pmid:9{i}"]
                        )
                    ],
                )
        except Exception as exc:  # surfaced below
            errors.append(exc)
        finally:
            qa_done.set()

    def hold_scoring_until_qa_wrote():
        halfway.wait()
        qa_done.wait(60)  # the refresh writes its score only after every QA write landed in between

    env.scores.while_scoring = hold_scoring_until_qa_wrote
    thread = threading.Thread(target=qa_writes)
    thread.start()
    refresh_graph.graph.invoke({"limit": 5}, context=env.ctx)
    thread.join()
    assert not errors and not halfway.broken, "the writers overlapped"
    targets = {r["target"] for r in store.outgoing("metformin")}
    assert targets == {"type 2 diabetes mellitus"} | {f"condition {i}" for i in range(10)}
    rescored = store.relation_history("metformin")
    assert any(json.loads(h)["event"] != "created" for r in rescored for h in r["history"]), "the refresh wrote too"


def test_second_refresher_exits_clearly(env, capsys):
    with FileLock(str(env.tmp / "refresh.lock")):
        code = _refresh(SimpleNamespace(every=None, limit=5), env.ctx)
    assert code == 3 and "another refresher is running" in capsys.readouterr().out
