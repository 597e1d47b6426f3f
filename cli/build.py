"""``amg build`` and ``amg refresh``: the offline build and the background refresh agents."""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from pathlib import Path

from filelock import FileLock, Timeout
from tqdm import tqdm

from amg.graphs.context import Context
from amg.graphs.resources import resources_for


def run(args, context: Context) -> int:
    try:
        return _build(args, context) if args.command == "build" else _refresh(args, context)
    finally:
        resources_for(context).close()


def corpus_topics(context: Context, limit: int) -> list[str]:
    """The vocabulary entities named most often in the ingested passages."""
    res = resources_for(context)
    counts: Counter[str] = Counter()
    documents = res.passages.collection.get(include=["documents"])["documents"]
    for text in tqdm(documents, desc="spotting entities in passages", unit=" passages"):
        counts.update(c.name for c in res.linker.spot(text))
    return [name for name, _ in counts.most_common(limit)]


def _build(args, context: Context) -> int:
    from amg.graphs import build_graph  # langgraph and the agents: seconds to load

    payload: dict = {"force": args.force}
    if args.topics:
        payload["topics"] = build_graph.read_topics(Path(args.topics))
    elif args.questions:
        payload["questions"] = build_graph.read_topics(Path(args.questions))
    else:
        payload["topics"] = corpus_topics(context, args.limit)
    for key in ("topics", "questions"):
        if key in payload:
            payload[key] = payload[key][: args.limit]
    bar = tqdm(desc="building", unit=" entities")
    summary = {}
    for update in build_graph.graph.stream(
        payload, context=context, stream_mode="updates", config={"max_concurrency": args.concurrency}
    ):
        for node, change in update.items():
            if node == "plan":
                bar.total = len(change["planned"])
                bar.write(f"{len(change['planned'])} to build, {change['skipped']} already done")
            elif node == "build_entity":
                bar.update(1)
            elif node == "summarize":
                summary = change["summary"]
    bar.close()
    print(
        f"built {summary['entities_built']} entities ({summary['skipped_already_done']} skipped as done): "
        f"{summary['relations_added']} relations, {summary['evidence_stored']} evidence records; "
        f"{summary['relations_refused']} refused for lack of grounds (listed in the run summary)"
    )
    for failure in summary["failures"]:
        print(f"  not built: {failure['entity']}: {failure['reason']}")
    return 0 if not summary["failures"] else 1


def literature_lines(summary: dict) -> list[str]:
    """What the refresh's literature step did: files synced, papers withdrawn, and each paper re-read."""
    literature, lines = summary.get("literature") or {}, []
    synced, changes = literature.get("sync"), literature.get("changes")
    if synced:
        lines.append(
            f"pubmed sync: {synced['fetched']} file(s) fetched, {synced['skipped']} already ingested, "
            f"{len(synced['failed'])} failed; records added {synced['added']:,}, revised {synced['revised']:,}, "
            f"deleted {synced['deleted']:,}, retracted {synced['retracted']:,}"
        )
        lines += [f"  file {name}: {problem}" for name, problem in synced["failed"].items()]
    lines += [f"  {note}" for note in literature.get("notes", [])]
    if changes and changes["changes_read"]:
        lines.append(
            f"literature changes: {changes['papers_withdrawn']} paper(s) the graph cites withdrawn "
            f"({changes['relations_weakened']} relation(s) weakened), {changes['queued_for_reread']} revised "
            "queued to re-read"
        )
    papers = summary.get("papers_reread") or []
    if papers:
        lines.append(f"re-read {len(papers)} revised paper(s):")
    for paper in papers:
        if paper["status"] != "re-read":
            lines.append(f"  {paper['paper']}: {paper['status']} ({paper.get('reason', '')})")
            continue
        lines.append(
            f"  {paper['paper']} {paper['title'][:70]}: {paper['relations']} relation(s) rest on it; "
            f"{paper['still_stated']} still stated, {paper['read_again']} read again, {paper['weakened']} weakened"
        )
    return lines


def parse_every(text: str) -> float:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd])\s*", text or "")
    if not match:
        raise ValueError(f"--every takes a duration like 30m, 6h or 1d; got {text!r}")
    return float(match.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[match.group(2)]


def _refresh(args, context: Context) -> int:
    period = parse_every(args.every) if args.every else None
    from amg.graphs import refresh_graph  # langgraph and the agents: seconds to load

    lock = FileLock(str(context.data_path / "refresh.lock"))
    context.data_path.mkdir(parents=True, exist_ok=True)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        print("amg: another refresher is running on this data dir; exiting", flush=True)
        return 3
    try:
        while True:
            summary = refresh_graph.graph.invoke({"limit": args.limit}, context=context)["summary"]
            print(
                f"{summary['finished_at'][:19]} refreshed {summary['refreshed']}/{summary['candidates']} entities, "
                f"{summary['relations_rescored']} relations re-scored, {summary['relations_weakened']} weakened",
                flush=True,
            )
            for line in literature_lines(summary):
                print(line, flush=True)
            for item in summary["results"]:
                if "paper" not in item and item["status"] != "refreshed":
                    print(f"  {item['entity']}: {item['status']} ({item.get('reason', '')})")
            if period is None:
                return 0
            time.sleep(period * random.uniform(0.9, 1.1))  # jitter: refreshers spread out
    finally:
        lock.release()
