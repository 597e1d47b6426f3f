"""``amg kg ...``: seed, stats, show, audit, history, export, import."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

from tqdm import tqdm

from amg.graphs.context import Context
from amg.graphs.resources import Resources
from amg.tools.kg.audit import audit
from amg.tools.kg.records import EntityProps
from amg.tools.kg.schema import STUDY_RESULTS
from amg.tools.kg.transfer.export_import import export_graph, import_graph
from amg.tools.kg.traversal.traverse import Limits, finding_steps, traverse
from amg.tools.kg.vocabularies.seeding import VOCABULARIES, seed

SHOW_POOL = 400  # nodes read before choosing what to show


def run(args, context: Context) -> int:
    res = Resources(context)
    try:
        return COMMANDS[args.kg_command](args, res)
    finally:
        res.close()


def _seed(args, res: Resources) -> int:
    vocabularies = VOCABULARIES if args.vocabulary == "all" else (args.vocabulary,)
    started = time.perf_counter()
    with tqdm(desc="seeding", unit=" items") as bar:
        for vocabulary in vocabularies:
            bar.set_description(f"seeding {vocabulary}")
            totals = seed(res.store, vocabulary, progress=lambda _v, n: bar.update(n), force=args.force)
            bar.write(
                f"{vocabulary}: {totals['chunks']} chunks written, {totals['skipped_chunks']} already done, "
                f"{totals['relations_written']} relations written"
            )
    seeded_s = time.perf_counter() - started
    with tqdm(desc="indexing entity names", unit=" entities") as bar:
        added = res.linker.sync(progress=bar.update, include_vocabulary=args.name_index)
    print(f"entity-name index: {added} names embedded")
    print(f"seeded in {seeded_s:.1f}s (total {time.perf_counter() - started:.1f}s)")
    _print_stats(res)
    return 0


def _print_stats(res: Resources) -> None:
    stats = res.store.stats()
    print(f"entities {stats['entities']:,}  relations {stats['relations']:,}  evidence {stats['evidence']:,}")
    print("by type: " + ", ".join(f"{t} {n:,}" for t, n in stats["entity_types"].items()))
    print("entities by source: " + ", ".join(f"{s} {n:,}" for s, n in stats["entities_by_source"].items()))
    print("relations by source: " + ", ".join(f"{s} {n:,}" for s, n in stats["relations_by_origin"].items()))


def _stats(args, res: Resources) -> int:
    _print_stats(res)
    return 0


def _resolve(res: Resources, name: str) -> EntityProps:
    entity = res.store.get_entity(name)
    if entity is None:
        found = res.linker.link(name)
        entity = res.store.get_entity(found[0].key) if found else None
    if entity is None:
        raise ValueError(f"no entity called {name!r} in the graph (try `amg kg seed` first)")
    return entity


def _show(args, res: Resources) -> int:
    entity = _resolve(res, args.entity)
    print(f"{entity['name']}  [{entity['type']}]  key={entity['key']}")
    if description := entity.get("description"):
        print(f"  {description[:300]}  (confidence {entity.get('description_confidence', 0):.2f})")
    print(
        f"  sources: {', '.join(entity.get('sources') or []) or '-'}   "
        f"aliases: {', '.join((entity.get('aliases') or [])[:6]) or '-'}"
    )
    c = res.context
    reached = traverse(
        res.store.neighbors,
        {entity["key"]: (entity["name"], entity["type"])},
        Limits(
            tau=c.tau,
            max_depth=c.max_depth,
            max_nodes=max(SHOW_POOL, args.limit + 1),
            strategy=c.traversal,
            hub_degree=c.hub_degree,
        ),
    )
    print(f"paths (confidence = product of edge confidences, tau={c.tau}, depth<={c.max_depth}):")
    paths = [n for n in reached.values() if n.depth]
    shown = varied(paths)[: args.limit]
    studies = finding_steps(
        res.store.findings([entity["key"]], list(STUDY_RESULTS), 0.0), {entity["key"]: (entity["name"], entity["type"])}
    )
    cited = {i for node in shown for step in node.path for i in step["evidence_ids"]}
    withdrawn = res.store.held_evidence(sorted(cited | {i for s in studies for i in s["evidence_ids"]}))
    for node in shown:
        evidence = sorted({i for step in node.path for i in step["evidence_ids"]})
        said = f"  ({node.path[-1]['description'][:70]})" if node.depth == 1 and node.path[-1]["description"] else ""
        print(
            f"  {node.score:.2f}  {node.explain()}{said}  "
            f"[{_marked(evidence[:3], withdrawn)}{' ...' if len(evidence) > 3 else ''}]"
        )
    if len(paths) > args.limit:
        kinds = Counter(n.path[0]["relation"] for n in paths)
        print(f"  ... {len(paths) - args.limit} more: " + ", ".join(f"{k} {v}" for k, v in kinds.most_common()))
    if len(reached) == 1:
        print("  (no relations at or above tau)")
    if studies:
        print("study findings (what papers found; the QA graph reads every one):")
    histories = {(h["source"], h["type"], h["target"]): h for h in res.store.relation_history(entity["key"])}
    for step in studies:
        print(
            f"  {step['confidence']:.2f}  {step['source']} -{step['relation']}-> {step['target']}  "
            f"[{_marked(step['evidence_ids'], withdrawn)}]\n        {step['description'][:200]}"
        )
        gone = [f"{i} {status.upper()}" for i in step["evidence_ids"] if (status := withdrawn.get(i))]
        if gone:  # its paper withdrawn: say so, with how the relation changed
            print(f"        {', '.join(gone)}: this finding no longer counts; its history:")
            held = histories.get((step["source"], step["relation"], step["target"]))  # findings read as stored
            for line in history_lines((held.get("history") if held else None) or []):
                print(f"      {line}")
    return 0


def _marked(ids: list[str], withdrawn: dict[str, str | None]) -> str:
    """Evidence ids, a withdrawn paper's marked ("pmid:1 RETRACTED")."""
    return ", ".join(f"{i} {status.upper()}" if (status := withdrawn.get(i)) else i for i in ids)


def history_lines(history: list[str]) -> list[str]:
    """A relation's history events, one line each: when, what, the confidence change, its evidence and why."""
    lines = []
    for raw in history:
        event = json.loads(raw)
        previous = f"{event['previous']:.2f} -> " if event.get("previous") is not None else ""
        why = f"  ({event['reason']})" if event.get("reason") else ""
        lines.append(
            f"{event['at'][:19]}  {event['event']:<11} {previous}{event['confidence']:.2f}  "
            f"evidence {', '.join(event['evidence_ids'][:4])}  {event.get('origin', '')} {event.get('model', '')}"
            f"{why}".rstrip()
        )
    return lines


def _audit(args, res: Resources) -> int:
    from amg.agents.relation_scorer import echo_sources  # the model's schemas: pydantic and openai, ~1.5 s

    report = audit(res.store, echo_sources(), fix=args.fix)
    if args.json:
        print(json.dumps(report.__dict__))
        return 0
    print("confidence by origin / model (relations per tenth: 0.0-0.1 ... 1.0):")
    for name, row in report.profile.items():
        print(f"  {name:<48} n={row['n']:>7,}  mean={row['mean']:.2f}  weakened={row['weakened']:,}  {row['tenths']}")
    print(
        f"checked {report.relations_checked:,} model-written relations and {report.descriptions_checked:,} "
        f"model-written descriptions: {len(report.violations)} violation(s)"
    )
    for v in report.violations[:50]:
        where = f"{v['s']} -{v['type']}-> {v['t']}" if v["what"] == "relation" else f"description of {v['key']}"
        print(f"  {where}: {v['reason']}")
    if report.fixed:
        print(f"marked {report.fixed} weakened (history kept; nothing deleted)")
    return 0


def varied(paths: list) -> list:
    """Strongest first within each kind of first step, the kinds taking turns: a drug's 200 interactions
    do not hide its class and role."""
    groups: dict[str, list] = {}
    for node in sorted(paths, key=lambda n: (-n.score, n.depth, n.name)):
        groups.setdefault(node.path[0]["relation"], []).append(node)
    turns = [(place, -group[0].score, kind) for kind, group in groups.items() for place in range(len(group))]
    return [groups[kind][place] for place, _, kind in sorted(turns)]


def _history(args, res: Resources) -> int:
    entity = _resolve(res, args.entity)
    rows = res.store.relation_history(entity["key"])
    if not rows:
        print(f"{entity['name']}: no relations yet")
    for row in rows:
        print(f"{row['source']} -{row['type']}-> {row['target']}: now {row['confidence']:.2f} ({row['status']})")
        for line in history_lines(row["history"] or []):
            print(f"    {line}")
    return 0


def _export(args, res: Resources) -> int:
    counts = export_graph(res.store, Path(args.path))
    print(f"wrote {args.path}: " + ", ".join(f"{k} {v:,}" for k, v in counts.items()))
    return 0


def _import(args, res: Resources) -> int:
    counts = import_graph(res.store, Path(args.path))
    print(f"read {args.path}: " + ", ".join(f"{k} {v:,}" for k, v in counts.items()))
    return 0


COMMANDS = {
    "seed": _seed,
    "stats": _stats,
    "show": _show,
    "audit": _audit,
    "history": _history,
    "export": _export,
    "import": _import,
}
