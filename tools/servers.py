"""Start-or-reuse lifecycle for local helper servers (graph database, LLM).

One server per home directory. The first process starts it; later processes on the
same home reuse it. Each process registers its PID; the server is stopped when the
last live client exits. A file lock serialises start/stop across processes.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from filelock import FileLock, Timeout

_IN_PROCESS: dict[Path, int] = {}  # acquisitions per server home in this process


class LocalServerError(RuntimeError):
    """A local server could not be started or reached; the message says how to fix it."""


def free_port() -> int:
    """A currently free TCP port on loopback."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class LocalServer:
    """A subprocess server described by how to launch it and how to probe it."""

    name: str
    home: Path
    launch: Callable[[dict[str, int]], list[str]]
    probe: Callable[[dict[str, int]], bool]
    port_names: tuple[str, ...]
    ready_timeout_s: float = 90.0
    env: dict[str, str] | None = None
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
        """Unregister this process; stop the server if no other live client remains."""
        if self._ports is None:
            return
        self._ports = None
        _IN_PROCESS[self.home] -= 1
        if _IN_PROCESS[self.home] > 0:
            return  # another user in this process still needs it
        with self._lock():
            (self.clients_dir / str(os.getpid())).unlink(missing_ok=True)
            if not self._live_clients():
                self._stop()

    def shutdown(self) -> None:
        """Stop the server whoever started it (for hosts that exit without running atexit)."""
        self.home.mkdir(parents=True, exist_ok=True)
        with self._lock():
            self._stop()

    def _live_clients(self) -> list[int]:
        live = []
        for entry in self.clients_dir.glob("*"):
            pid = int(entry.name) if entry.name.isdigit() else -1
            if pid > 0 and pid_alive(pid):
                live.append(pid)
            else:
                entry.unlink(missing_ok=True)
        return live

    def _running_ports(self) -> dict[str, int] | None:
        if not self.state_file.exists():
            return None
        try:
            state = json.loads(self.state_file.read_text())
        except (OSError, ValueError):
            return None
        ports = state.get("ports", {})
        if pid_alive(int(state.get("pid", -1))) and self._safe_probe(ports):
            return ports
        return None

    def _safe_probe(self, ports: dict[str, int]) -> bool:
        try:
            return bool(self.probe(ports))
        except Exception:  # a probe failing for any reason means "not ready"
            return False

    def _start(self) -> dict[str, int]:
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
        deadline = time.monotonic() + self.ready_timeout_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise LocalServerError(f"{self.name} exited at start (code {proc.returncode}); see {log_path}")
            if self._safe_probe(ports):
                self.state_file.write_text(json.dumps({"pid": proc.pid, "ports": ports}))
                return ports
            time.sleep(0.25)
        _terminate(proc.pid)
        raise LocalServerError(f"{self.name} did not become ready in {self.ready_timeout_s:.0f}s; see {log_path}")

    def _stop(self) -> None:
        if not self.state_file.exists():
            return
        try:
            pid = int(json.loads(self.state_file.read_text()).get("pid", -1))
        except (OSError, ValueError):
            pid = -1
        if pid > 0:
            _terminate(pid)
        self.state_file.unlink(missing_ok=True)


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
