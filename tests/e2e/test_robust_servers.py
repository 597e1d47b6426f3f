"""The embedded graph server: its password never on a command line, a wrong one fails fast and clearly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from amg.tools.kg.store.server import embedded_graph_server
from amg.tools.servers import LocalServer, LocalServerError, pid_alive, watch


def cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def test_password_is_not_on_the_command_line(graph_session):
    home = Path(os.environ["AMG_DATA_DIR"]) / "graph"
    pid = json.loads((home / "server.json").read_text())["pid"]
    password = (home / "password").read_text().strip()
    line = cmdline(pid)
    assert "ArcadeDBServer" in line and password not in line


def test_wrong_password_is_one_clear_error_quickly(tmp_path):
    server, _ = embedded_graph_server(tmp_path, heap="256m")
    server.acquire()
    server.release()
    (tmp_path / "graph" / "password").write_text("not-the-password-it-was-created-with")
    started = time.monotonic()
    with pytest.raises(LocalServerError, match="rejects the password in .*password: it keeps the one"):
        embedded_graph_server(tmp_path, heap="256m")[0].acquire()
    assert time.monotonic() - started < 30
    assert not (tmp_path / "graph" / "server.json").exists(), "the refused server was stopped"


HOLDER = """
import sys, time
sys.path.insert(0, {root!r})
from pathlib import Path
from amg.tools.kg.store.server import embedded_graph_server
embedded_graph_server(Path({data!r}), heap="256m")[0].acquire()
print("ready", flush=True)
time.sleep(600)
"""


def test_server_of_a_client_killed_with_sigkill_is_stopped(tmp_path):
    code = HOLDER.format(root=str(Path(__file__).parents[2]), data=str(tmp_path))
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        pid = json.loads((tmp_path / "graph" / "server.json").read_text())["pid"]
        assert pid_alive(pid)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    state = tmp_path / "graph" / "server.json"
    deadline = time.monotonic() + 30  # the watchdog stops the server, then removes its state file
    while (pid_alive(pid) or state.exists()) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not pid_alive(pid), "the orphaned graph server was stopped"
    assert not state.exists()


SLOW_STARTER = """
import sys
sys.path.insert(0, {root!r})
from pathlib import Path
from amg.tools.servers import LocalServer
launch = lambda p: [sys.executable, "-c", "import time; time.sleep(600)"]
server = LocalServer(
    "never ready", Path({home!r}), launch=launch, probe=lambda p: False, port_names=("http",), ready_timeout_s=600
)
server.acquire()
"""


def test_client_killed_while_its_server_starts_leaves_no_server(tmp_path):
    code = SLOW_STARTER.format(root=str(Path(__file__).parents[2]), home=str(tmp_path))
    starter = subprocess.Popen([sys.executable, "-c", code])
    state = tmp_path / "server.json"
    deadline = time.monotonic() + 20
    while not state.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    pid = json.loads(state.read_text())["pid"]
    starter.send_signal(signal.SIGKILL)
    starter.wait()
    deadline = time.monotonic() + 15
    while (pid_alive(pid) or state.exists()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not pid_alive(pid) and not state.exists()


def test_interrupted_start_stops_what_it_launched(tmp_path):
    def interrupted(ports):
        raise KeyboardInterrupt

    server = LocalServer(
        "stand-in",
        tmp_path,
        launch=lambda p: [sys.executable, "-c", "import time; time.sleep(601)"],
        probe=interrupted,
        port_names=("http",),
        ready_timeout_s=20,
    )
    with pytest.raises(KeyboardInterrupt):
        server.acquire()
    assert not (tmp_path / "server.json").exists()
    assert not any(pid_alive(int(p)) for p in _children_named("time.sleep(601)"))


def _children_named(text: str) -> list[str]:
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if text in (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode():
                found.append(proc.name)
        except OSError:
            continue
    return found


@pytest.mark.parametrize("home", ["deleted", "made anew"])
def test_a_server_whose_data_dir_was_deleted_is_stopped(tmp_path, home):
    """Three graph servers outlived `rm -rf` of their data dir by 20 minutes: their watchdogs had stopped watching."""
    server = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True)
    data = tmp_path / "graph"
    if home == "made anew":  # another client's server is recorded there now
        data.mkdir()
        (data / "server.json").write_text(json.dumps({"pid": os.getpid(), "ports": {}}))
    watch(data, server.pid, keep_alive=300.0)
    assert server.wait(timeout=15) is not None and not pid_alive(server.pid)
