"""Start-or-reuse lifecycle for local helper servers (graph database, LLM).

One server per home directory. The first process starts it; later processes on the
same home reuse it. Each process registers its PID; once the last live client has exited,
the server stays up for ``keep_alive_s`` seconds (the app's ``AMG_KEEP_ALIVE``, 300 s by
default, as Ollama keeps a model loaded) so the next command finds it ready instead of
waiting for a JVM and a model to load; 0 stops it with the last client. A file lock serialises start/stop across
processes. A small
watchdog process started with the server (``python -m tools.servers HOME PID KEEP_ALIVE``)
stops it once it has been clientless that long, so a client killed with SIGKILL leaves no
server running for longer either.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path

from filelock import FileLock, Timeout

_IN_PROCESS: dict[Path, int] = {}  # acquisitions per server home in this process
WATCH_INTERVAL_S = 2.0


class LocalServerError(RuntimeError):
    """A local server could not be started or reached; the message says how to fix it."""


def free_port() -> int:
    """A currently free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True  # no /proc: trust kill(0)


@dataclass
class LocalServer:
    """A subprocess server described by how to launch it and how to probe it."""

    name: str
    home: Path
    _: KW_ONLY
    launch: Callable[[dict[str, int]], list[str]]
    probe: Callable[[dict[str, int]], bool]
    port_names: tuple[str, ...]
    ready_timeout_s: float = 90.0
    env: dict[str, str] | None = None
    keep_alive_s: float = 0.0  # seconds a clientless server stays up for the next client
    _ports: dict[str, int] | None = field(default=None, init=False)

    @property
    def state_file(self) -> Path:
        return self.home / "server.json"

    @property
    def clients_dir(self) -> Path:
        return self.home / "clients"

    def _lock(self) -> FileLock:
        return FileLock(str(self.home / "server.lock"), timeout=self.ready_timeout_s + 30)

    def acquire(self) -> dict[str, int]:
        """Return the ports of a running server, starting one if needed."""
        if self._ports is not None:
            return self._ports
        self.home.mkdir(parents=True, exist_ok=True)
        try:
            with self._lock():
                ports = self._running_ports() or self._start()
                self.clients_dir.mkdir(exist_ok=True)
                (self.clients_dir / str(os.getpid())).touch()
        except Timeout:
            raise LocalServerError(
                f"{self.name}: another process holds {self.home}/server.lock; wait or remove a stale lock"
            ) from None
        self._ports = ports
        _IN_PROCESS[self.home] = _IN_PROCESS.get(self.home, 0) + 1
        atexit.register(self.release)
        return ports

    def release(self) -> None:
        """Unregister this process; without keep-alive, stop the server if no other live client remains."""
        if self._ports is None:
            return
        self._ports = None
        _IN_PROCESS[self.home] -= 1
        if _IN_PROCESS[self.home] > 0:
            return  # another user in this process still needs it
        with self._lock():
            (self.clients_dir / str(os.getpid())).unlink(missing_ok=True)
            if not live_clients(self.clients_dir) and self.keep_alive_s <= 0:
                self._stop()

    def shutdown(self) -> None:
        """Stop the server whoever started it (for hosts that exit without running atexit)."""
        self.home.mkdir(parents=True, exist_ok=True)
        with self._lock():
            self._stop()

    def _running_ports(self) -> dict[str, int] | None:
        if not self.state_file.exists():
            return None
        try:
            state = json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return None
        if state.get("home", str(self.home)) != str(self.home):
            return None  # a data dir copied while its server ran: that server serves the original
        ports, pid = state.get("ports", {}), int(state.get("pid", -1))
        deadline = time.monotonic() + self.ready_timeout_s
        while pid_alive(pid):  # a live server may be busy (a local model answers one request at a time): wait
            if self._safe_probe(ports):
                return ports
            if time.monotonic() > deadline:
                raise LocalServerError(
                    f"{self.name} (pid {pid}) is running but has not answered for "
                    f"{self.ready_timeout_s:.0f}s; wait for it, or stop it and retry"
                )
            time.sleep(0.5)
        return None

    def _safe_probe(self, ports: dict[str, int]) -> bool:
        """Whether it answers; a probe raising LocalServerError means it never will (e.g. a wrong password)."""
        try:
            return bool(self.probe(ports))
        except LocalServerError:
            raise
        except Exception:  # a probe failing for any other reason means "not ready"
            return False

    def _start(self) -> dict[str, int]:
        """Launch, record and watch the server before waiting for it, so nothing can orphan it."""
        self._stop()  # a stale process recorded in the state file, if any
        ports = {name: free_port() for name in self.port_names}
        log_path = self.home / "server.log"
        with open(log_path, "ab") as log:
            proc = subprocess.Popen(
                self.launch(ports),
                cwd=self.home,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, **(self.env or {})},
                start_new_session=True,
            )
        self.state_file.write_text(json.dumps({"pid": proc.pid, "ports": ports, "home": str(self.home)}))
        _start_watchdog(self.home, proc.pid, self.keep_alive_s)
        try:
            self._wait_ready(proc, ports, log_path)
        except BaseException:  # not ready, refused, or interrupted (Ctrl-C): never leave it running
            _terminate(proc.pid)
            self.state_file.unlink(missing_ok=True)
            raise
        return ports

    def _wait_ready(self, proc: subprocess.Popen, ports: dict[str, int], log_path: Path) -> None:
        deadline = time.monotonic() + self.ready_timeout_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise LocalServerError(f"{self.name} exited at start (code {proc.returncode}); see {log_path}")
            if self._safe_probe(ports):
                return
            time.sleep(0.25)
        raise LocalServerError(f"{self.name} did not become ready in {self.ready_timeout_s:.0f}s; see {log_path}")

    def _stop(self) -> None:
        if not self.state_file.exists():
            return
        pid = _recorded_pid(self.state_file)
        if pid > 0:
            _terminate(pid)
        self.state_file.unlink(missing_ok=True)


def live_clients(clients_dir: Path) -> list[int]:
    """PIDs of the registered clients still running; the others are unregistered."""
    live = []
    for entry in clients_dir.glob("*"):
        pid = int(entry.name) if entry.name.isdigit() else -1
        if pid > 0 and pid_alive(pid):
            live.append(pid)
        else:
            entry.unlink(missing_ok=True)
    return live


def _recorded_pid(state_file: Path) -> int:
    try:
        return int(json.loads(state_file.read_text()).get("pid", -1))
    except (OSError, ValueError, AttributeError):
        return -1


def _start_watchdog(home: Path, pid: int, keep_alive: float) -> None:
    subprocess.Popen(
        [sys.executable, "-m", "amg.tools.servers", str(home), str(pid), str(keep_alive)],
        cwd=Path(__file__).resolve().parents[1],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def watch(home: Path, pid: int, keep_alive: float = 0.0) -> None:
    """Stop server ``pid`` once it has had no live client for ``keep_alive`` seconds, or at once when no client
    can find it any more (its data dir records another server, or is gone); return when it is gone."""
    idle_since = None
    while pid_alive(pid):
        time.sleep(WATCH_INTERVAL_S)
        try:
            with FileLock(str(home / "server.lock"), timeout=0):
                if _recorded_pid(home / "server.json") != pid:
                    _terminate(pid)  # replaced, or its data dir deleted and made anew: no client can reach it
                    return
                if live_clients(home / "clients"):
                    idle_since = None
                    continue
                idle_since = idle_since or time.monotonic()
                if time.monotonic() - idle_since >= keep_alive:
                    _terminate(pid)
                    (home / "server.json").unlink(missing_ok=True)
                    return
        except Timeout:
            continue  # a client is starting or stopping it
        except OSError:  # its data dir is gone
            _terminate(pid)
            return


def _terminate(pid: int, grace_s: float = 10.0) -> None:
    """SIGTERM the process group, then SIGKILL after a grace period."""
    try:
        os.killpg(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        try:
            waited, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            waited = 0 if pid_alive(pid) else pid
        if waited == pid or not pid_alive(pid):
            return
        time.sleep(0.1)
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


if __name__ == "__main__":
    watch(Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]) if len(sys.argv) > 3 else 0.0)
