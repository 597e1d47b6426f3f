"""The robustness campaign's in-process probes: generated questions, model faults at each agent and crafted
imports, against one in-process Resources, the scripted model server and the real local graph server; and the
graph invariants every probe checks (``defects``). benchmarks/robustness.py runs them beside the process probes.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from pathlib import Path

from amg.cli.errors import user_errors
from amg.graphs.context import Context
from amg.graphs.qa_graph import graph
from amg.graphs.resources import Resources, install
from amg.testing.scripted_llm import ScriptedServer, prompt_text
from amg.tools.kg.records import EntityRecord, EvidenceRecord, RelationRecord
from amg.tools.kg.schema import RELATION_TYPES
from amg.tools.kg.transfer.export_import import export_graph, import_graph
from amg.tools.llm.chat import ModelUnavailable
from benchmarks import robustness_inputs as inputs
from benchmarks.robustness_runs import Tally

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
        RelationRecord(
            drug.title(),
            disease,
            type="treats",
            confidence=0.9,
            evidence_ids=[f"pmid:{i}"],
            score_raw=9,
            description=hostile,
            origin="pubmed",
            model="m",
        )
        for i, (drug, disease) in enumerate(inputs.PARTNERS.items(), 1)
    ]
    store.upsert(
        [
            EntityRecord(
                "Metformin",
                "drug",
                description=f"A biguanide. {hostile}",
                description_confidence=0.9,
                aliases=["Glucophage"],
            )
        ],
        evidence,
        relations=relations,
        supports=[("Metformin", "pmid:1")],
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
