"""`amg ask` under faults: a misbehaving model endpoint, a graph server that dies, hostile input and output."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from amg.cli import main as cli
from amg.testing.scripted_llm import answer_lines, asks_for_answer, asks_for_entities
from amg.tools.kg.records import EvidenceRecord, RelationRecord
from amg.tools.servers import pid_alive

NO_CHOICES = {"payload": {"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": []}}


def healthy(body):
    if asks_for_entities(body):
        return {"content": "metformin | drug"}
    if asks_for_answer(body):
        return answer_lines(answer="Metformin treats type 2 diabetes.", confidence=0.6, citations=[1])
    return {"content": "reasoning"}


@pytest.fixture
def endpoint(store, scripted_server, monkeypatch):
    store.upsert(
        evidence=[EvidenceRecord(id="pmid:31000001", kind="pubmed", title="Metformin first line")],
        relations=[
            RelationRecord(
                "Metformin", "Type 2 diabetes mellitus", type="treats", confidence=0.9, evidence_ids=["pmid:31000001"]
            )
        ],
    )
    monkeypatch.setenv("OPENAI_API_KEY", "t")
    monkeypatch.setenv("AMG_LLM_MODEL", "scripted")
    monkeypatch.setenv("AMG_MODE", "offline")

    def start(responder):
        server = scripted_server(responder)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        return server

    return start


def ask(capsys, *argv) -> tuple[int, str, str, float]:
    started = time.monotonic()
    code = cli.main(["ask", *argv])
    out, err = capsys.readouterr()
    return code, out, err, time.monotonic() - started


@pytest.mark.parametrize(
    "fault, says",
    [
        ({"status": 500, "error": "CUDA out of memory"}, "answered HTTP 500: CUDA out of memory (3 attempts)"),
        ({"status": 429, "error": "slow down"}, "answered HTTP 429: slow down (3 attempts)"),
        (NO_CHOICES, "sent a reply with no choices"),
        ({"raw": "<html>502 Bad Gateway</html>"}, "sent a reply that is not JSON"),
        ({"content": "late", "delay": 6}, "did not answer within 2 s (AMG_LLM_TIMEOUT)"),
    ],
)
def test_model_faults_are_one_line_naming_the_endpoint(endpoint, capsys, monkeypatch, fault, says):
    # the retries share the timeout's budget: at 2 s their random pauses sometimes left room for 2 attempts, not 3
    timeout = 2 if "delay" in fault else 10
    monkeypatch.setenv("AMG_LLM_TIMEOUT", str(timeout))
    server = endpoint(lambda body: fault)
    code, out, err, took = ask(capsys, "What is metformin used for?")
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.splitlines()[-1] == f"amg: error: model endpoint {server.base_url} {says}"
    assert sum(line.startswith("amg: ") for line in err.splitlines()) == 1
    assert took < timeout + 12, "one call waits at most AMG_LLM_TIMEOUT (plus start-up), not 300 s x 3"


def test_unreachable_endpoint_names_its_url(endpoint, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # discard port: nothing listens
    code, _, err, _ = ask(capsys, "What is metformin used for?")
    assert code == 2 and err.startswith("amg: error: model endpoint http://127.0.0.1:9/v1 cannot be reached")


def test_a_request_over_the_context_degrades_the_answer(endpoint, capsys):
    overflow = {"status": 400, "error": "Requested tokens (5000) exceed context window of 4096"}
    endpoint(lambda body: overflow if asks_for_answer(body) else healthy(body))
    code, out, err, _ = ask(capsys, "What is metformin used for?")
    assert code == 0 and "(degraded: answer synthesizer" in out and "Traceback" not in err


def test_graph_server_dying_mid_question_is_one_line(endpoint, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("AMG_DATA_DIR", str(tmp_path / "data"))  # its own graph server, killed below
    state = tmp_path / "data" / "graph" / "server.json"

    def kill_graph_then_answer(body):
        if state.exists():
            pid = json.loads(state.read_text())["pid"]
            os.kill(pid, signal.SIGKILL)
            while pid_alive(pid):
                time.sleep(0.05)
        return healthy(body)

    endpoint(kill_graph_then_answer)
    code, out, err, took = ask(capsys, "What is metformin used for?")
    assert code == 2 and "Traceback" not in err, err
    assert err.splitlines()[-1].startswith("amg: error: the local graph server stopped answering during the run")
    assert took < 60


def test_control_and_bidi_characters_from_the_model_never_reach_the_terminal(endpoint, capsys):
    hostile = "Metformin\x1b[2J\x1b[31m is \u202efirst\u202c line\x07\r"
    endpoint(lambda body: answer_lines(answer=hostile, confidence=0.6) if asks_for_answer(body) else healthy(body))
    code, out, _, _ = ask(capsys, "What is metformin used for?")
    assert code == 0 and "Metformin[2J[31m is first line" in out
    assert not any(c in out for c in "\x1b\u202e\u202c\x07\r")
    code, out, _, _ = ask(capsys, "What is metformin used for?", "--json")
    assert not any(c in out for c in "\x1b\u202e\u202c\x07\r")
    assert json.loads(out)["answer"].startswith("Metformin\x1b[2J"), "--json keeps the data, escaped"


@pytest.mark.parametrize(
    "argv, env, says",
    [
        (["\u200b\u200d\ufeff\u2060"], {}, "the input was empty"),
        (["\udcff\udcfe"], {}, "not valid UTF-8 text"),
        (["Which?", "--option", "A=x", "--option", "a=y"], {}, "--option A was given more than once"),
        (["Which?"], {"AMG_MAX_NODES": "0"}, "AMG_MAX_NODES=0 (at least 1)"),
        (["Which?"], {"AMG_KEEP_SCORE": "99"}, "AMG_KEEP_SCORE=99 (1..10)"),
        (["Which?"], {"AMG_LLM_TIMEOUT": "0"}, "AMG_LLM_TIMEOUT=0.0 (seconds"),
        (["Which?"], {"AMG_DATA_DIR": "{file}"}, "is a file; point it at a folder"),
    ],
)
def test_bad_input_is_one_clear_line(endpoint, capsys, monkeypatch, tmp_path, argv, env, says):
    endpoint(healthy)
    (tmp_path / "a-file").write_text("not a folder")
    for name, value in env.items():
        monkeypatch.setenv(name, value.format(file=tmp_path / "a-file"))
    code, out, err, _ = ask(capsys, *argv)
    assert code == 2 and "Traceback" not in err and says in err.splitlines()[-1], err


def test_mode_flag_overrides_a_bad_environment_value(endpoint, capsys, monkeypatch):
    endpoint(healthy)
    monkeypatch.setenv("AMG_MODE", "nonsense")
    code, out, err, _ = ask(capsys, "What is metformin used for?", "--mode", "offline")
    assert code == 0 and "Metformin treats type 2 diabetes." in out, err


def test_duplicate_inline_option_letters_are_a_problem():
    from langchain_core.messages import HumanMessage

    from amg.graphs.question import prepare_question

    state = {"messages": [HumanMessage("Which drug?\nA. Metformin\nB. Insulin\nA. Aspirin")]}
    assert "A was given more than once" in prepare_question(state)[3]


def run_amg(argv: list, stdin: bytes = b"", **env: str) -> subprocess.CompletedProcess:
    """`amg` as the program, in its own process."""
    return subprocess.run(
        [sys.executable, "-m", "amg.cli.main", *argv],
        input=stdin,
        capture_output=True,
        env={**os.environ, **env},
        timeout=120,
    )


def test_undecodable_argument_or_variable_is_one_line_before_anything_starts(tmp_path):
    done = run_amg(["ask", b"\xff\xfe what?"], AMG_DATA_DIR=str(tmp_path))
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr == b"amg: error: argument 2 is not valid UTF-8 text; check the terminal's encoding (LANG)\n"
    assert not (tmp_path / "graph").exists(), "refused before any server or thread started"
    done = run_amg(["ask", "What is metformin used for?"], AMG_DATA_DIR=str(tmp_path), AMG_MODE="off\udcfeline")
    assert done.returncode == 2
    assert done.stderr == b"amg: error: AMG_MODE is not valid UTF-8 text; set it again in UTF-8\n"


def test_undecodable_stdin_in_chat_is_one_line_while_resources_load(endpoint):
    endpoint(healthy)  # stdin decoded strictly (as in most UTF-8 locales): the bytes raise while the embedder loads
    done = run_amg(["chat"], stdin=b"What is \xff\xfe metformin?\n", PYTHONIOENCODING="utf-8:strict")
    assert done.returncode == 2, done.stderr.decode(errors="replace")
    assert done.stderr.decode().splitlines() == ["amg: error: standard input is not UTF-8 text (byte 0xff)"]


NATIVE_THREAD = """
import sys, threading, time, torch
matrix = torch.rand(300, 300)
busy = threading.Event()
def multiply():
    busy.set()
    while True:
        matrix @ matrix
threading.Thread(target=multiply, daemon=True).start()
busy.wait()
sys.argv = ["amg", "ask", "Which drug?"]
from amg.cli.main import main
sys.exit(main())  # what the installed `amg` script does
"""


def test_a_user_error_while_a_native_thread_runs_exits_2_not_sigabrt():
    # the interpreter's exit tore such a thread down inside torch: SIGABRT after the printed error
    done = subprocess.run(
        [sys.executable, "-c", NATIVE_THREAD],
        capture_output=True,
        timeout=120,
        env={**os.environ, "AMG_MAX_NODES": "0"},
    )
    assert done.returncode == 2, done.stderr.decode(errors="replace")[-500:]
    assert done.stderr.decode().splitlines() == ["amg: error: invalid configuration: AMG_MAX_NODES=0 (at least 1)"]


def test_ask_prints_nothing_but_its_own_lines_unless_verbose(endpoint):
    endpoint(healthy)  # the embedder loads (sentence-transformers, transformers) and the model is called over HTTP
    done = run_amg(["ask", "What is metformin used for?"])
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-500:]
    assert done.stderr == b"", "no library logging or progress bar between the command and its answer"
    assert done.stdout.decode().startswith("Metformin treats type 2 diabetes.")
    loud = run_amg(["-v", "ask", "What is metformin used for?"])
    assert b"HTTP Request: POST" in loud.stderr, "-v shows the libraries' logging"
