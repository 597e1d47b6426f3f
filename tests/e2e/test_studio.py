"""Studio: `langgraph dev` serves the graphs and a chat turn runs through its HTTP API."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from langgraph_sdk import get_sync_client

from amg.testing.scripted_llm import answer_lines, asks_for_answer, asks_for_entities
from amg.tools.kg.store.server import embedded_graph_server
from amg.tools.servers import free_port

ROOT = Path(__file__).resolve().parents[2]


def responder(body: dict) -> dict:
    if asks_for_entities(body):
        return {"content": "asthma | disease"}
    if asks_for_answer(body):
        return answer_lines(answer="Asthma is a chronic airway disease.", confidence=0.4)
    return {"content": "Asthma is not in the graph yet."}


@pytest.mark.slow
def test_langgraph_dev_serves_graphs_and_a_chat_turn(scripted_server, tmp_path):
    cli = shutil.which("langgraph", path=str(Path(sys.executable).parent))
    assert cli, "langgraph-cli is a dev dependency"
    server = scripted_server(responder)
    port = free_port()
    env = {
        **os.environ,
        "OPENAI_BASE_URL": server.base_url,
        "OPENAI_API_KEY": "test",
        "AMG_LLM_MODEL": "scripted",
        "AMG_DATA_DIR": str(tmp_path / "data"),
        "LANGSMITH_TRACING": "false",
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
    }
    log = open(tmp_path / "studio.log", "w")
    proc = subprocess.Popen(
        [cli, "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        client = get_sync_client(url=f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 90
        while True:
            try:
                assistants = client.assistants.search()
                break
            except Exception:
                if time.monotonic() > deadline or proc.poll() is not None:
                    pytest.fail("langgraph dev did not start: " + (tmp_path / "studio.log").read_text()[-2000:])
                time.sleep(0.5)
        assert {"qa", "build", "refresh"} <= {a["graph_id"] for a in assistants}
        thread = client.threads.create()
        result = client.runs.wait(
            thread["thread_id"],
            "qa",
            input={"messages": [{"role": "human", "content": "What is asthma?"}]},
            context={"evidence_mode": "offline"},
        )
        assert result["messages"][-1]["type"] == "ai"
        assert "Asthma is a chronic airway disease." in result["messages"][-1]["content"]
        assert "not medical advice" in result["messages"][-1]["content"]
        assert "Rests on the model's own knowledge" in result["messages"][-1]["content"], (
            "an empty graph: nothing cited"
        )
        state = client.threads.get_state(thread["thread_id"])["values"]
        assert state["citations"] == [] and state["confidence_basis"]["rests_on"].startswith(
            "the model's own knowledge"
        )
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)
        log.close()
        # the dev server exits without atexit hooks: stop the graph server it started
        embedded_graph_server(tmp_path / "data")[0].shutdown()
        assert not (tmp_path / "data" / "graph" / "server.json").exists()
