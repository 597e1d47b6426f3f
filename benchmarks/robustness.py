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
import hashlib
import json
import os
import random
import secrets
import tempfile
import time
from pathlib import Path

from amg.cli.errors import user_errors
from amg.graphs.context import Context
from amg.graphs.qa_graph import graph
from amg.graphs.resources import Resources, install
from amg.testing.scripted_llm import ScriptedServer, prompt_text
from amg.tools.kg.records import EntityRecord, EvidenceRecord, RelationRecord
from amg.tools.kg.schema import RELATION_TYPES
from amg.tools.kg.store.connection import GraphUnavailable
from amg.tools.kg.transfer.export_import import export_graph, import_graph
from amg.tools.llm.chat import ModelUnavailable
from amg.tools.servers import LocalServerError
from benchmarks import robustness_inputs as inputs
from benchmarks.report import emit
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

HANG_S = 30.0  # one in-process question: a few model calls of AMG_LLM_TIMEOUT=2 s each, plus retries


class Switch:
    """The scripted server's responder, swapped between probes."""

    def __init__(self, responder):
        self.responder = responder

    def to(self, responder) -> None:
        self.responder = responder

    def __call__(self, body: dict) -> dict:
        return self.responder(body)


def seed_graph(store) -> None:
    """A small graph whose evidence and descriptions carry injection payloads."""
    hostile = " ".join(inputs.PAYLOADS)
    evidence = [
        EvidenceRecord(id=f"pmid:{i}", kind="pubmed", title=f"Trial {i} {hostile}", snippet=hostile, pmid=str(i))
        for i in range(1, 7)
    ]
    relations = [
        RelationRecord(drug.title(), disease, "treats", 0.9, [f"pmid:{i}"], 9, hostile, "pubmed", "m")
        for i, (drug, disease) in enumerate(inputs.PARTNERS.items(), 1)
    ]
    store.upsert(
        [EntityRecord("Metformin", "drug", f"A biguanide. {hostile}", 0.9, ["Glucophage"])],
        evidence,
        relations,
        [("Metformin", "pmid:1")],
    )


def sane(result: dict) -> bool:
    """An answer the user can trust to be well-formed: a known option (or none), a confidence in [0, 1]."""
    return (
        result.get("option") in (None, *result.get("options", {}))
        and 0.0 <= float(result.get("confidence", 0)) <= 1
        and isinstance(result.get("answer", ""), str)
    )


def ask_in_process(tally: Tally, ctx: Context, item: dict, texts: list[str]) -> None:
    """One question; ``item["refused"]``: True = must be a problem, False = must be an answer, None = either."""
    started = time.monotonic()
    try:
        result = graph.invoke({"question": item["question"], "options": item["options"]}, context=ctx)
        texts.append(json.dumps({k: v for k, v in result.items() if k in ("answer", "citations", "rationale")}))
        refused = bool(result.get("problem"))
        ok = sane(result) and item["refused"] in (None, refused)
        said = "refused" if refused else "answered"
        tracebacks, note = 0, f"{item['kind']}: {said} {result.get('answer')!r:.80}"
    except (ModelUnavailable, *user_errors()) as exc:  # one clear line at the CLI
        ok, tracebacks, note = item["refused"] is not False, 0, f"{item['kind']}: {exc}"
        texts.append(str(exc))
    except Exception as exc:  # a traceback at the CLI
        ok, tracebacks, note = False, 1, f"{type(exc).__name__}: {exc}"
    tally.add(ok, note, tracebacks, hang=time.monotonic() - started > HANG_S)


def question_probe(ctx: Context, store, rng: random.Random, n: int, texts: list[str]) -> Tally:
    tally, before = Tally(), _counts(store)
    for item in inputs.questions(rng, n):
        ask_in_process(tally, ctx, item, texts)
    tally.lost = sum(abs(a - b) for a, b in zip(before, _counts(store)))  # hostile text never changes the graph
    return tally


def fault_probe(ctx: Context, switch: Switch, texts: list[str], every_agent: bool) -> Tally:
    """Each model fault at each agent, or (the short form) each fault once, at the agents in turn."""
    tally, agents = Tally(), list(inputs.FAULT_AT)
    for n, (name, fault) in enumerate(inputs.MODEL_FAULTS.items()):
        for at in agents if every_agent else [agents[n % len(agents)]]:
            switch.to(inputs.faulty(fault, at))
            item = {
                "kind": f"{name} at {at}",
                "question": inputs.MEDICAL[n % len(inputs.MEDICAL)],
                "refused": None,
                "options": {"A": "Metformin", "B": "Insulin"} if n % 2 else {},
            }
            ask_in_process(tally, ctx, item, texts)
    switch.to(inputs.healthy)
    return tally


def import_probe(store, work: Path, rng: random.Random, n: int) -> tuple[Tally, dict[str, Path]]:
    """Crafted files are refused whole (graph unchanged) or, if still valid, keep every invariant."""
    tally, base = Tally(), {s: work / f"base{s}" for s in (".jsonl", ".graphml")}
    for path in base.values():
        export_graph(store, path)
    snapshot, lines = _snapshot(store, work), base[".jsonl"].read_text().splitlines()
    for i in range(n):
        crafted = work / f"crafted-{i}{'.graphml' if i % 3 == 2 else '.jsonl'}"
        if crafted.suffix == ".graphml":
            crafted.write_text(inputs.crafted_graphml(rng, base[".graphml"].read_text()))
        else:
            crafted.write_bytes(inputs.crafted_jsonl(rng, lines))
        try:
            import_graph(store, crafted)
            tally.add(defects(store)["total"] == 0, f"{crafted.name} accepted and broke an invariant")
            import_graph(store, base[".jsonl"])
        except ValueError:
            changed = _snapshot(store, work) != snapshot
            tally.add(not changed, f"{crafted.name} refused but the graph changed", lost=int(changed))
        except Exception as exc:
            tally.add(False, f"{crafted.name}: {type(exc).__name__}: {exc}", tracebacks=1)
    files = {"crafted.jsonl": work / "cli-crafted.jsonl", "crafted.graphml": work / "cli-crafted.graphml"}
    files["crafted.jsonl"].write_text(base[".jsonl"].read_text() + lines[-1].replace('"kind"', '"kind2"', 1) + "\n")
    files["crafted.graphml"].write_text(base[".graphml"].read_text().replace('<data key="k0">', '<data key="k99">', 1))
    return tally, files


def defects(store) -> dict[str, int]:
    """Relations breaking the graph's invariants (evidence, confidence, vocabulary, self-loops)."""
    rows = [
        {
            "s": r["source"],
            "t": r["target"],
            "type": r["props"].get("type"),
            "c": r["props"].get("confidence"),
            "ev": r["props"].get("evidence_ids"),
        }
        for r in store.all_relations()
    ]
    known = store.evidence_ids()
    found = {
        "without_evidence": sum(not r["ev"] or not set(r["ev"]) <= known for r in rows),
        "bad_confidence": sum(type(r["c"]) not in (int, float) or not 0 <= r["c"] <= 1 for r in rows),
        "bad_type": sum(r["type"] not in RELATION_TYPES for r in rows),
        "self_loops": sum(r["s"] == r["t"] for r in rows),
    }
    return {**found, "total": sum(found.values())}


def _counts(store) -> tuple[int, int, int]:
    stats = store.stats()
    return stats["entities"], stats["relations"], stats["evidence"]


def _snapshot(store, work: Path) -> str:
    export_graph(store, work / "snapshot.jsonl")
    rows = sorted((work / "snapshot.jsonl").read_text().splitlines())
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()


def injections(server: ScriptedServer) -> tuple[int, int]:
    """(prompts carrying a payload, prompts in which one arrived verbatim: text that could close or open a block)."""
    escaped = [p.replace("&", "&amp;").replace("<", "&lt;") for p in inputs.PAYLOADS]
    carried = sum(any(p in prompt_text(b) for p in escaped + list(inputs.PAYLOADS)) for b in server.requests)
    return carried, sum(any(p in prompt_text(body) for p in inputs.PAYLOADS) for body in server.requests)


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


def in_process(ctx: Context, switch: Switch, server: ScriptedServer, work: Path, rng, args) -> dict:
    """Questions, model faults and crafted imports against one in-process Resources."""
    res = Resources(ctx)
    install(res)
    seed_graph(res.store)
    texts: list[str] = []
    tallies = {
        "questions (in process)": question_probe(ctx, res.store, rng, args.questions, texts),
        "model faults (in process)": fault_probe(ctx, switch, texts, not args.short),
    }
    tallies["crafted imports"], files = import_probe(res.store, work, rng, args.imports)
    carried, escaped = injections(server)
    found = {
        "tallies": tallies,
        "files": files,
        "texts": texts,
        "injections_tried": carried,
        "injections_escaped": escaped,
        "edges_without_evidence": defects(res.store)["without_evidence"],
    }
    res.close()
    return found


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
