"""Process-level probes of the robustness campaign: hostile command lines, kill -9, concurrency."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

from amg.testing.scripted_llm import asks_for_answer
from benchmarks.robustness_inputs import MODEL_FAULTS, healthy
from benchmarks.robustness_runs import (
    DRUGS,
    Amg,
    Run,
    Tally,
    built,
    clean_error,
    cmdline_secrets,
    folder_size,
    graph_of,
    kill_graph,
    once,
    orphans_after,
    unsafe_for_terminal,
)

SEED_WRITING_BYTES = 4_000_000  # the graph grew this much: the seed is writing its vocabulary, not starting up
HOSTILE_ANSWER = {"content": "Option: A\nAnswer: Metformin\x1b[2J\x1b]0;owned\x07 \u202eevil\u202c\r\nConfidence: 0.5"}
ASK = ["ask", "What is metformin used for?"]


def hostile(body: dict) -> dict:
    return HOSTILE_ANSWER if asks_for_answer(body) else healthy(body)


def _hang(run: Run, amg: Amg) -> bool:
    return not run.killed and run.seconds >= amg.hang_s


def cli_probe(amg: Amg, data: Path, switch, files: dict[str, Path]) -> Tally:
    """Hostile command lines and endpoints: an answer or one `amg: error:` line, and nothing that drives the
    terminal."""
    tally = Tally()
    cases = [  # (argv, environment, responder, expected exit code)
        (ASK, {}, hostile, 0),
        ([*ASK, "--json"], {}, hostile, 0),
        ([*ASK, "--option", "A=x", "--option", "a=y"], {}, healthy, 2),
        (["ask", b"\xff\xfe what?"], {}, healthy, 2),
        ([*ASK, "--mode", "offline"], {"AMG_MODE": "nonsense"}, healthy, 0),
        (ASK, {"AMG_MAX_NODES": "0"}, healthy, 2),
        (ASK, {"AMG_DATA_DIR": str(files["topics"])}, healthy, 2),
        (ASK, {}, lambda b: MODEL_FAULTS["HTTP 500"], 2),
        (ASK, {"AMG_LLM_TIMEOUT": "3"}, lambda b: {"content": "late", "delay": 30}, 2),
        (["kg", "import", str(files["crafted.jsonl"])], {}, healthy, 2),
        (["kg", "import", str(files["crafted.graphml"])], {}, healthy, 2),
    ]
    for argv, env, responder, expected in cases:
        switch.to(responder)
        run = amg.run(argv, env.pop("AMG_DATA_DIR", data), **env)
        ok = run.code == expected and clean_error(run) and not unsafe_for_terminal(run.out)
        tally.add(ok, f"{argv[:3]} -> {run.code}: {run.err.strip()[-200:]}", run.tracebacks, _hang(run, amg))
    switch.to(healthy)
    return tally


def kill_probes(
    amg: Amg, data: Path, switch, files: dict[str, Path], rng: random.Random, kills: int, vocabulary: str = "drugs"
) -> dict:
    """kill -9 at random moments of ask, build, bench and seed, and of the graph server during a question."""
    amg.run(["ingest", str(files["corpus"])], data)
    tallies = {
        name: Tally()
        for name in ("kill -9 ask", "kill -9 build", "kill -9 bench", "kill -9 seed", "graph killed mid-question")
    }
    orphaned = 0
    for _ in range(kills):
        run = amg.run(ASK, data, kill_after=rng.uniform(1.0, 10.0))
        leftover = orphans_after(data)
        orphaned += leftover
        tallies["kill -9 ask"].add(leftover == 0, f"{leftover} servers left", run.tracebacks)
    orphaned += _killed_builds(amg, data, switch, files, rng, kills, tallies["kill -9 build"])
    orphaned += _killed_benches(amg, data, switch, files, rng, kills, tallies["kill -9 bench"])
    orphaned += _killed_seed(amg, data, rng, tallies["kill -9 seed"], vocabulary)

    def graph_dies(body: dict) -> dict:
        kill_graph(data)
        return healthy(body)

    switch.to(graph_dies)
    run = amg.run(ASK, data)
    switch.to(healthy)
    ok = run.code == 2 and clean_error(run) and "stopped answering" in run.err
    tallies["graph killed mid-question"].add(ok, run.err[-300:], run.tracebacks, _hang(run, amg))
    orphaned += orphans_after(data)
    return {"tallies": tallies, "orphaned_servers": orphaned}


def _killed_builds(amg: Amg, data: Path, switch, files, rng, kills: int, tally: Tally) -> int:
    """kill -9 a build, then build again: every topic ends built (or skipped as done), nothing written twice."""
    orphaned = 0
    switch.to(lambda body: {**healthy(body), "delay": 0.7})
    for _ in range(kills):
        run = amg.run(["build", "--topics", str(files["topics"]), "--force"], data, kill_after=rng.uniform(3.0, 15.0))
        orphaned += orphans_after(data)
        resumed = amg.run(["build", "--topics", str(files["topics"])], data)
        missing = max(len(DRUGS) - built(resumed), 0) if built(resumed) >= 0 else len(DRUGS)
        with graph_of(data) as store:
            twice = written_twice(store)
        tally.add(
            resumed.code == 0 and missing == 0 and twice == 0,
            f"{twice} written twice; {resumed.err[-300:]}",
            run.tracebacks + resumed.tracebacks,
            _hang(resumed, amg),
            lost=missing + twice,
        )
    switch.to(healthy)
    return orphaned + orphans_after(data)


def written_twice(store) -> int:
    """Relations stored more than once between the same entities with the same type."""
    keys = [(r["source"], r["target"], r["props"].get("type")) for r in store.all_relations()]
    return len(keys) - len(set(keys))


def _killed_benches(amg: Amg, data: Path, switch, files, rng, kills: int, tally: Tally) -> int:
    orphaned = 0
    switch.to(lambda body: {**healthy(body), "delay": 0.3})
    for n in range(kills):
        out = files["bench"].parent / f"bench-out-{n}"
        results = out / "closed-book" / "results.jsonl"
        due = once(lambda: results.exists() and results.stat().st_size > 0, rng.uniform(0.0, 2.0))  # noqa: B023 (called within this iteration)
        argv = ["bench", str(files["bench"]), "--method", "closed-book", "--out", str(out)]
        run = amg.run(argv, data, kill_when=due)
        orphaned += orphans_after(data)
        resumed = amg.run([*argv, "--resume"], data)
        lines = results.read_text().splitlines() if results.exists() else []
        try:
            ids = [json.loads(line)["id"] for line in lines if line.strip()]
        except ValueError:
            ids = []
        ok = resumed.code == 0 and len(ids) == len(set(ids)) == 12
        tally.add(
            ok, resumed.err[-300:], run.tracebacks + resumed.tracebacks, _hang(resumed, amg), lost=12 - len(set(ids))
        )
    switch.to(healthy)
    return orphaned


def _killed_seed(amg: Amg, data: Path, rng: random.Random, tally: Tally, vocabulary: str) -> int:
    argv = ["kg", "seed", "--vocabulary", vocabulary]
    before = folder_size(data / "graph")
    writing = once(lambda: folder_size(data / "graph") > before + SEED_WRITING_BYTES, rng.uniform(0.0, 2.0))
    run = amg.run(argv, data, kill_when=writing)
    orphaned = orphans_after(data)
    resumed = amg.run(argv, data)
    tally.add(
        run.killed and resumed.code == 0,
        f"killed={run.killed}; {resumed.err[-300:]}",
        run.tracebacks + resumed.tracebacks,
        _hang(resumed, amg),
    )
    return orphaned


def concurrency_probe(amg: Amg, data: Path, store, files: dict[str, Path], secrets: list[str], asks: int = 4) -> dict:
    """``asks`` asks, a refresh and a build at once on one data dir: all succeed, no counter update lost."""
    tally = Tally()
    amg.run(["ingest", str(files["corpus"])], data)
    before = _hits(store)
    amg.run(ASK, data)
    per_ask = _hits(store) - before
    started = _hits(store)
    began, procs = time.monotonic(), [amg.start(ASK, data) for _ in range(asks)]
    procs += [
        amg.start(["refresh", "--limit", "3"], data),
        amg.start(["build", "--topics", str(files["topics"])], data),
    ]
    exposed = 0
    while any(p.poll() is None for p in procs):
        exposed += cmdline_secrets(data, secrets)
        time.sleep(1.0)
    for run in (amg.finish(proc, began) for proc in procs):
        tally.add(run.code == 0 and "ConstraintError" not in run.err, run.err[-300:], run.tracebacks)
    lost = asks * per_ask - (_hits(store) - started)
    tally.lost += abs(lost)
    return {"tally": tally, "cmdline_secrets": exposed}


def _hits(store) -> int:
    entity = store.entities(["metformin"]).get("metformin") or {}
    return int(entity.get("hits") or 0)
