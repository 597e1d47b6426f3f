"""Local server lifecycle and model verification, with a tiny stand-in server (no Java, no model)."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import threading
import time
import urllib.request

import pytest

from amg.tools.llm.weights import LocalModel, model_file
from amg.tools.servers import LocalServer, LocalServerError, pid_alive


def http_server(home, keep_alive_s=0.0):
    def probe(ports):
        with urllib.request.urlopen(f"http://127.0.0.1:{ports['http']}/", timeout=1) as resp:
            return resp.status == 200

    return LocalServer(
        "stand-in",
        home,
        launch=lambda p: [sys.executable, "-m", "http.server", str(p["http"]), "--bind", "127.0.0.1"],
        probe=probe,
        port_names=("http",),
        ready_timeout_s=20,
        keep_alive_s=keep_alive_s,
    )


SECOND_CLIENT = """
import sys, json
sys.path.insert(0, {root!r})
from tests.e2e.test_local_servers import http_server
from pathlib import Path
server = http_server(Path({home!r}))
print(json.dumps(server.acquire()), flush=True)
sys.stdin.readline()  # hold the server until told to go; atexit releases it
"""


def test_second_process_reuses_and_last_one_out_stops(tmp_path):
    import subprocess
    from pathlib import Path

    first = http_server(tmp_path)
    ports = first.acquire()
    pid = json.loads(first.state_file.read_text())["pid"]
    code = SECOND_CLIENT.format(root=str(Path(__file__).parents[2]), home=str(tmp_path))
    second = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert json.loads(second.stdout.readline()) == ports, "a second process reuses the running server"
    first.release()
    assert pid_alive(pid), "still in use by the second process"
    second.communicate("go\n", timeout=20)
    assert not first.state_file.exists(), "the last client out stopped it"


def test_a_kept_alive_server_serves_the_next_client_then_stops_when_idle(tmp_path):
    first = http_server(tmp_path, keep_alive_s=1.0)
    ports = first.acquire()
    pid = json.loads(first.state_file.read_text())["pid"]
    first.release()
    assert pid_alive(pid), "kept up for the next client"
    later = http_server(tmp_path, keep_alive_s=1.0)
    assert later.acquire() == ports and json.loads(later.state_file.read_text())["pid"] == pid
    later.release()
    deadline = time.monotonic() + 20
    while (pid_alive(pid) or later.state_file.exists()) and time.monotonic() < deadline:
        time.sleep(0.2)  # the watchdog stops it, then forgets it
    assert not pid_alive(pid) and not later.state_file.exists(), "the watchdog stopped it once idle"


def test_a_copied_home_starts_its_own_server(tmp_path):
    original = http_server(tmp_path / "a", keep_alive_s=30.0)
    original.acquire()
    shutil.copytree(tmp_path / "a", tmp_path / "b", ignore=shutil.ignore_patterns("*.lock"))
    copy = http_server(tmp_path / "b")
    try:
        copy.acquire()
        assert json.loads(copy.state_file.read_text())["pid"] != json.loads(original.state_file.read_text())["pid"]
    finally:
        copy.release()
        original.release()
        original.shutdown()


def test_stale_state_is_replaced(tmp_path):
    server = http_server(tmp_path)
    tmp_path.mkdir(exist_ok=True)
    server.state_file.write_text(json.dumps({"pid": 999999, "ports": {"http": 1}}))
    ports = server.acquire()
    assert ports["http"] != 1
    server.release()


def test_server_that_dies_at_start_gives_a_clear_error(tmp_path):
    broken = LocalServer(
        "broken",
        tmp_path,
        launch=lambda p: [sys.executable, "-c", "raise SystemExit(3)"],
        probe=lambda p: False,
        port_names=("http",),
        ready_timeout_s=10,
    )
    with pytest.raises(LocalServerError, match="exited at start"):
        broken.acquire()


@pytest.fixture
def parts_package(tmp_path, monkeypatch):
    pkg = tmp_path / "site" / "fake_weights_part1"
    (pkg / "data").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "data" / "part01.bin").write_bytes(b"GGUF" + b"x" * 1000)
    (pkg / "data" / "part02.bin").write_bytes(b"y" * 500)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    whole = b"GGUF" + b"x" * 1000 + b"y" * 500
    return LocalModel(
        "fake",
        "fake.gguf",
        part_modules=("fake_weights_part1",),
        sha256=hashlib.sha256(whole).hexdigest(),
        install_hint="reinstall",
    )


def test_weights_are_joined_verified_and_rejoined_when_corrupt(tmp_path, parts_package):
    path = model_file(parts_package, tmp_path / "models")
    assert path.read_bytes().startswith(b"GGUF") and path.stat().st_size == 1504
    path.write_bytes(b"truncated")  # a partial or corrupt file
    path.with_suffix(".sha256-ok").unlink()
    assert model_file(parts_package, tmp_path / "models").stat().st_size == 1504


def test_wrong_checksum_is_a_clear_error(tmp_path, parts_package):
    bad = LocalModel(
        "fake",
        "fake.gguf",
        part_modules=parts_package.part_modules,
        sha256="0" * 64,
        install_hint="reinstall the parts",
    )
    with pytest.raises(LocalServerError, match="fail the sha256 check"):
        model_file(bad, tmp_path / "models")
    missing = LocalModel(
        "fake", "fake.gguf", part_modules=("no_such_module_anywhere",), sha256="0" * 64, install_hint="pip install it"
    )
    with pytest.raises(LocalServerError, match="is missing; pip install it"):
        model_file(missing, tmp_path / "models2")


def test_embedded_llm_server_reads_the_output_limit_chatopenai_sends():
    from amg.tools.llm.server_entry import alias_limit

    body = json.dumps({"messages": [], "max_completion_tokens": 40}).encode()
    assert json.loads(alias_limit(body)) == {"messages": [], "max_tokens": 40}
    untouched = json.dumps({"max_tokens": 10, "max_completion_tokens": 40}).encode()
    assert alias_limit(untouched) == untouched and alias_limit(b"not json") == b"not json"


def test_on_an_amx_cpu_the_weights_load_without_the_buffers_that_crash(tmp_path):
    """llama.cpp's AMX weight buffers crash the first batch (llama.cpp#20824): there they are not used."""
    import llama_cpp.llama_cpp as llama_lib

    from amg.tools.llm.server_entry import has_amx, without_extra_buffers

    amx, plain = tmp_path / "amx", tmp_path / "plain"
    amx.write_text("flags\t\t: fpu avx512f amx_bf16 amx_tile amx_int8\n")
    plain.write_text("flags\t\t: fpu avx2 avx512f\n")
    assert has_amx(amx) and not has_amx(plain) and not has_amx(tmp_path / "missing")
    assert llama_lib.llama_model_default_params().use_extra_bufts
    assert not without_extra_buffers(llama_lib.llama_model_default_params)().use_extra_bufts


def test_a_busy_server_is_waited_for_not_killed(tmp_path):
    """A local model answers one request at a time: a second client finds it busy and must wait, not restart it."""
    import os
    import signal
    import threading

    first = http_server(tmp_path)
    ports = first.acquire()
    pid = json.loads(first.state_file.read_text())["pid"]
    os.kill(pid, signal.SIGSTOP)  # busy: alive, but not answering its probe
    threading.Timer(2.0, lambda: os.kill(pid, signal.SIGCONT)).start()
    second = http_server(tmp_path)
    assert second.acquire() == ports and pid_alive(pid), "the same server, still running"
    second.release()
    first.release()


def test_the_graph_and_model_servers_start_at_the_same_time_and_once(monkeypatch, tmp_path):
    from amg.graphs.context import Context
    from amg.graphs.resources import Resources
    from amg.tools.kg.store import connection
    from amg.tools.kg.store.neo4j_store import Neo4jStore
    from amg.tools.llm import chat

    model_starting, starts = threading.Event(), []

    def connect_graph(*args, **kwargs):  # waits for the model's start: would never finish if the two starts took turns
        starts.append("graph")
        assert model_starting.wait(10), "the graph server waited for the model server"
        return FakeDriver(), "kg", None

    def chat_model(**kwargs):
        starts.append("llm")
        model_starting.set()
        return "llm", None

    class FakeDriver:
        def close(self):
            pass

    monkeypatch.setattr(connection, "connect_graph", connect_graph)  # Resources imports them where it uses them
    monkeypatch.setattr(chat, "chat_model", chat_model)
    monkeypatch.setattr(Neo4jStore, "ensure_schema", lambda self: None)
    res = Resources(Context().with_overrides(data_dir=str(tmp_path)))
    res.start_in_background("store", "llm")
    assert res.llm == "llm" and isinstance(res.store, Neo4jStore) and res.store is res.store
    assert sorted(starts) == ["graph", "llm"], "each started once, though asked for from two threads"
