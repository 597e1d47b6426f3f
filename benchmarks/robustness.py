"""Reliability and security as a measured campaign: bounded, repeatable (seeded), loopback only.

In process, against a scripted OpenAI-compatible server that misbehaves on purpose and the real
local graph server: generated questions and option sets, model faults at each agent, crafted
JSONL and GraphML imports. As processes: hostile command lines, kill -9 at random moments of
`amg ask`, `build`, `bench` (then `--resume`) and `kg seed`, and of the graph server during a
question; four asks (the short form: two), a refresh and a build at once on one data dir; crafted files for `amg ingest
pubmed`, kill -9 during a large ingest, two ingests at once. Servers are kept alive KEEP_ALIVE_S (3 s)
after their last client, so one still up once that has passed is an orphan. Then every file under
the data dirs and every output is searched for the keys and passwords that were set. Prints a table
(probe, tried, failed, lost) and, last, one JSON line whose goal figures (GOALS) are all 0.
`--short` is the form `make test` runs (tests/e2e/test_robust_campaign.py): a few of each, each fault once.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import secrets
import tempfile
import time
from pathlib import Path

from amg.graphs.context import Context
from amg.testing.scripted_llm import ScriptedServer
from amg.tools.kg.store.connection import GraphUnavailable
from amg.tools.servers import LocalServerError
from benchmarks import robustness_inputs as inputs
from benchmarks.report import emit
from benchmarks.robustness_in_process import Switch, defects, in_process, seed_graph
from benchmarks.robustness_literature import literature_probe
from benchmarks.robustness_probes import cli_probe, concurrency_probe, kill_probes
from benchmarks.robustness_runs import (
    KEEP_ALIVE_S,
    Amg,
    Clock,
    Tally,
    graph_of,
    orphans_after,
    secrets_in,
    write_inputs,
)


def _environment(server: ScriptedServer, keys: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "NEO4J_", "AMG_", "NCBI_"))}
    return {
        **env,
        "OPENAI_BASE_URL": server.base_url,
        "OPENAI_API_KEY": keys["openai"],
        "NCBI_API_KEY": keys["ncbi"],
        "NEO4J_PASSWORD": keys["neo4j"],
        "NCBI_EMAIL": "robustness@example.invalid",
        "AMG_LLM_MODEL": "scripted",
        "AMG_MODE": "offline",
        "AMG_KEEP_ALIVE": str(KEEP_ALIVE_S),
        "AMG_SOURCES": "textbook",
        "AMG_LLM_TIMEOUT": "10",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
    }


def crowd(amg: Amg, data: Path, files: dict, keys: dict[str, str], asks: int) -> dict:
    """The concurrency probe, with this process holding the graph to read its counters."""
    with graph_of(data) as store:
        seed_graph(store)
        found = concurrency_probe(amg, data, store, files, [*keys.values(), *_passwords(data.parent)], asks)
        return {**found, "edges_without_evidence": defects(store)["without_evidence"]}


def _passwords(work: Path) -> list[str]:
    return [p.read_text().strip() for p in work.glob("*/graph/password")]


def _defects_of(data: Path) -> int | None:
    """Relations without evidence in the graph of ``data``; None if it cannot be opened (e.g. held by an orphan)."""
    try:
        with graph_of(data) as store:
            return defects(store)["without_evidence"]
    except (GraphUnavailable, LocalServerError):
        return None


GOALS = (
    "tracebacks",
    "hangs",
    "lost_writes",
    "half_written_records",
    "edges_without_evidence",
    "orphaned_servers",
    "secrets_found",
    "injections_escaped",
    "failed",
)
SHORT = {
    "questions": 12,
    "imports": 3,
    "kills": 1,
    "records": 10_000,
    "vocabulary": "icd10",
    "asks": 2,
}  # `make test`'s form


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--short", action="store_true", help=f"a few of each ({SHORT}); each fault once")
    parser.add_argument("--questions", type=int, default=520)
    parser.add_argument("--imports", type=int, default=60)
    parser.add_argument("--kills", type=int, default=2, help="kill -9 trials per command")
    parser.add_argument("--records", type=int, default=50_000, help="records of the PubMed ingest killed")
    parser.add_argument("--vocabulary", default="drugs", choices=("drugs", "icd10"), help="of the `kg seed` killed")
    parser.add_argument("--asks", type=int, default=4, help="asks beside a refresh and a build on one data dir")
    args = parser.parse_args(argv)
    return argparse.Namespace(**{**vars(args), **(SHORT if args.short else {})})


def campaign(args: argparse.Namespace, work: Path) -> tuple[dict[str, Tally], dict]:
    rng = random.Random(args.seed)
    keys = {name: f"{name}-secret-{secrets.token_hex(12)}" for name in ("openai", "ncbi", "neo4j")}
    switch = Switch(inputs.healthy)
    server = ScriptedServer(switch)
    dirs = {name: work / name for name in ("in-process", "processes", "concurrency", "literature")}
    ctx = Context(
        data_dir=str(dirs["in-process"]),
        openai_base_url=server.base_url,
        openai_api_key=keys["openai"],
        llm_model="scripted",
        evidence_mode="offline",
        sources="textbook",
        llm_timeout=2.0,
        neo4j_uri="",
        keep_alive=KEEP_ALIVE_S,
    )
    clock = Clock()
    with clock("in process"):
        inner = in_process(ctx, switch, server, work, rng, args)
    tallies, files = inner["tallies"], {**inner["files"], **write_inputs(work)}
    amg = Amg(_environment(server, keys))
    with clock("command lines"), graph_of(dirs["processes"]) if args.short else contextlib.nullcontext():
        tallies["command lines"] = cli_probe(amg, dirs["processes"], switch, files)  # short: no JVM start per case
    with clock("kill -9"):
        killed = kill_probes(amg, dirs["processes"], switch, files, rng, args.kills, args.vocabulary)
    tallies.update(killed["tallies"])
    with clock("concurrent writers"):
        crowded = crowd(amg, dirs["concurrency"], files, keys, args.asks)
    tallies[f"{args.asks} asks + refresh + build at once"] = crowded["tally"]
    with clock("literature"):
        literature = literature_probe(amg, dirs["literature"], work, rng, args.records, args.short)
    tallies.update(literature["tallies"])
    server.close()
    leaks = secrets_in([work], amg.outputs + inner["texts"], [*keys.values(), *_passwords(work)])
    unchecked = _defects_of(dirs["processes"])
    figures = {
        "tracebacks": sum(t.tracebacks for t in tallies.values()),
        "hangs": sum(t.hangs for t in tallies.values()),
        "lost_writes": sum(t.lost for t in tallies.values()),
        "half_written_records": literature["half_written_records"],
        "edges_without_evidence": None
        if unchecked is None
        else inner["edges_without_evidence"] + crowded["edges_without_evidence"] + unchecked,
        "orphaned_servers": killed["orphaned_servers"] + sum(orphans_after(d) for d in dirs.values()),
        "secrets_found": len(leaks) + crowded["cmdline_secrets"],
        "injections_escaped": inner["injections_escaped"],
        "injections_tried": inner["injections_tried"],
        "tried": sum(t.tried for t in tallies.values()),
        "failed": sum(t.failed for t in tallies.values()),
        "seed": args.seed,
        "short": args.short,
        "notes": {name: t.notes for name, t in tallies.items() if t.notes},
        "secret_locations": leaks[:10],
        "phase_seconds": clock.seconds,
    }
    return tallies, figures


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    work = Path(tempfile.mkdtemp(prefix="amg-robustness-"))
    started = time.monotonic()
    tallies, figures = campaign(args, work)
    figures["seconds"] = round(time.monotonic() - started)
    rows = [(name, f"tried {t.tried:>4}  failed {t.failed:>3}  lost {t.lost:>3}") for name, t in tallies.items()]
    rows += [(key, figures[key]) for key in GOALS]
    rows += [(f"seconds: {phase}", seconds) for phase, seconds in figures["phase_seconds"].items()]
    emit(f"Robustness campaign (seed {args.seed}{', short' if args.short else ''}, work dir {work})", rows, figures)


if __name__ == "__main__":
    main()
