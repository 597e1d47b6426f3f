"""The campaign's process-level probes: `amg` runs killed with SIGKILL at random moments, concurrent runs,
hostile command lines, and what is left behind (orphaned servers, secrets in files and output)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path

from amg.graphs.context import Context
from amg.graphs.resources import Resources
from amg.tools.servers import pid_alive

ROOT = Path(__file__).resolve().parents[1]
KEEP_ALIVE_S = 3  # AMG_KEEP_ALIVE in the campaign: servers kept up by design, yet gone before orphans are counted
DRUGS = {
    "metformin": "type 2 diabetes mellitus",
    "insulin": "hyperglycemia",
    "aspirin": "headache",
    "warfarin": "thrombosis",
    "amoxicillin": "otitis media",
    "lisinopril": "hypertension",
}


@dataclass
class Run:
    code: int | None
    out: str
    _: KW_ONLY
    err: str
    seconds: float
    killed: bool = False

    @property
    def tracebacks(self) -> int:
        return (self.out + self.err).count("Traceback (most recent call last)")


@dataclass
class Tally:
    """One probe's outcome: trials, trials that broke a promise, writes lost, and the runs' output."""

    tried: int = 0
    failed: int = 0
    lost: int = 0
    tracebacks: int = 0
    hangs: int = 0
    notes: list[str] = field(default_factory=list)

    def add(self, ok: bool, note: str = "", tracebacks: int = 0, hang: bool = False, lost: int = 0) -> None:
        self.tried += 1
        self.failed += not ok
        self.tracebacks += tracebacks
        self.hangs += hang
        self.lost += lost
        if not ok and note and len(self.notes) < 5:
            self.notes.append(note[:300])


class Amg:
    """Runs `amg` as a separate process with the campaign's environment; keeps every output for the secret scan."""

    def __init__(self, env: dict[str, str], hang_s: float = 240.0):
        self.env, self.hang_s, self.outputs = env, hang_s, []

    def start(self, argv: list, data: Path, **env: str) -> subprocess.Popen:
        full = {**self.env, "AMG_DATA_DIR": str(data), **env}
        return subprocess.Popen(
            [sys.executable, "-m", "amg.cli.main", *argv],
            cwd=ROOT,
            env=full,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )

    def run_together(self, argvs: list[list], data: Path) -> list[Run]:
        """Start every command at once on ``data`` and wait for them all."""
        started, procs = time.monotonic(), [self.start(argv, data) for argv in argvs]
        return [self.finish(proc, started) for proc in procs]

    def finish(self, proc: subprocess.Popen, started: float) -> Run:
        try:
            out, err = proc.communicate(timeout=max(self.hang_s - (time.monotonic() - started), 1))
        except subprocess.TimeoutExpired:  # a hang: reported, not waited for
            proc.kill()
            out, err = proc.communicate()
        self.outputs += [out, err]
        return Run(proc.returncode, out, err=err, seconds=time.monotonic() - started)

    def run(self, argv: list, data: Path, kill_after: float | None = None, kill_when=None, **env: str) -> Run:
        """Run to the end (or SIGKILL it after ``kill_after`` s, or once ``kill_when()`` is true)."""
        started = time.monotonic()
        proc = self.start(argv, data, **env)
        killed = False
        while proc.poll() is None and time.monotonic() - started < self.hang_s:
            due = kill_after is not None and time.monotonic() - started >= kill_after
            if due or (kill_when is not None and kill_when()):
                proc.send_signal(signal.SIGKILL)
                killed = True
                break
            time.sleep(0.05)
        if proc.poll() is None and not killed:
            proc.send_signal(signal.SIGKILL)  # a hang: the run is reported, not waited for
        out, err = proc.communicate()
        self.outputs += [out, err]
        return Run(proc.returncode, out, err=err, seconds=time.monotonic() - started, killed=killed)


class Clock:
    """Seconds spent in each named phase: ``with clock("kill -9"): ...``."""

    def __init__(self):
        self.seconds: dict[str, float] = {}

    @contextmanager
    def __call__(self, phase: str):
        started = time.monotonic()
        try:
            yield
        finally:
            self.seconds[phase] = round(self.seconds.get(phase, 0.0) + time.monotonic() - started, 1)


@contextmanager
def graph_of(data: Path):
    """The graph store of ``data``'s local graph server, held by this process while in use."""
    res = Resources(Context(data_dir=str(data), neo4j_uri="", keep_alive=KEEP_ALIVE_S))
    try:
        yield res.store
    finally:
        res.close()


def server_processes(data: Path) -> list[int]:
    """PIDs of local servers (and their watchdogs) working on ``data``."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            line = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(data) in line and ("ArcadeDBServer" in line or "amg.tools.servers" in line or "llama" in line):
            found.append(int(proc.name))
    return found


def once(condition, extra_s: float):
    """A kill condition: true ``extra_s`` seconds after ``condition()`` was first seen true."""
    seen: list[float] = []

    def due() -> bool:
        if not seen and condition():
            seen.append(time.monotonic())
        return bool(seen) and time.monotonic() - seen[0] >= extra_s

    return due


def folder_size(folder: Path) -> int:
    """Bytes under ``folder``; 0 while a writer renames files under it (the next poll reads again)."""
    try:
        return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    except OSError:
        return 0


def orphans_after(data: Path, wait_s: float = 12.0) -> int:
    """Servers on ``data`` still running ``wait_s`` after their last client ended (the campaign's keep-alive,
    KEEP_ALIVE_S, plus the watchdog's check interval and a server's shutdown)."""
    deadline = time.monotonic() + wait_s
    while server_processes(data) and time.monotonic() < deadline:
        time.sleep(0.5)
    return len(server_processes(data))


def secrets_in(roots: list[Path], texts: list[str], secrets: list[str]) -> list[str]:
    """Where any secret appears: files under ``roots`` (a password file itself excepted) and ``texts``."""
    needles = [s.encode() for s in secrets if s]
    found = []
    for root in roots:
        for path in (p for p in root.rglob("*") if p.is_file() and p.name != "password"):
            try:
                data = path.read_bytes()
            except OSError:
                continue
            found += [str(path) for needle in needles if needle in data]
    found += [f"output #{i}" for i, text in enumerate(texts) for s in secrets if s and s in text]
    return found


def cmdline_secrets(data: Path, secrets: list[str]) -> int:
    """Secrets readable by any local user on the command lines of the servers of ``data``."""
    count = 0
    for pid in server_processes(data):
        try:
            line = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        count += sum(1 for s in secrets if s and s in line)
    return count


def clean_error(run: Run) -> bool:
    """Exit 0, or exit 2 with one error starting `amg: error:` (an import's may list rows below it); no traceback."""
    errors = [line for line in run.err.splitlines() if line.startswith("amg: ")]
    return run.tracebacks == 0 and (run.code == 0 or (run.code == 2 and len(errors) == 1))


def unsafe_for_terminal(text: str) -> bool:
    return bool(re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", text))


def built(run: Run) -> int:
    """Entities built plus skipped as done, from `amg build`'s last line."""
    match = re.search(r"built (\d+) entities \((\d+) skipped", run.out)
    return int(match.group(1)) + int(match.group(2)) if match else -1


def write_inputs(work: Path) -> dict[str, Path]:
    """The corpus, topics and a small multiple-choice set the process probes use."""
    paths = {"corpus": work / "corpus", "topics": work / "topics.txt", "bench": work / "bench.jsonl"}
    paths["corpus"].mkdir(exist_ok=True)
    for drug, disease in DRUGS.items():  # a file each: "lisinopril" scored 0.21 against one chunk holding all six,
        text = f"{drug.title()} treats {disease}. {drug.title()} is used for {disease} in adults."  # under the
        (paths["corpus"] / f"{drug}.md").write_text(text)  # passage floor (0.3): its build found no evidence
    paths["topics"].write_text("\n".join(DRUGS))
    rows = [
        {
            "id": f"q{i}",
            "question": f"Question {i}: which drug treats type 2 diabetes mellitus?",
            "subject": "x",
            "options": {"A": "Metformin", "B": "Aspirin", "C": "Warfarin", "D": "Insulin"},
            "answer": "A",
        }
        for i in range(12)
    ]
    paths["bench"].write_text("".join(json.dumps(r) + "\n" for r in rows))
    return paths


def graph_pid(data: Path) -> int | None:
    state = data / "graph" / "server.json"
    try:
        return int(json.loads(state.read_text())["pid"])
    except (OSError, ValueError, KeyError):
        return None


def kill_graph(data: Path) -> None:
    """SIGKILL the graph server of ``data`` if it runs, and wait until it is gone."""
    pid = graph_pid(data)
    if pid is None:
        return
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 10
    while pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
