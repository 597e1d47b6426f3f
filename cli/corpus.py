"""``amg ingest`` and ``amg search``: the textbook passage store."""

from __future__ import annotations

from pathlib import Path

from tqdm import tqdm

from amg.graphs.context import Context
from amg.graphs.resources import Resources


def run(args, context: Context) -> int:
    store = Resources(context).passages
    if args.command == "ingest":
        with tqdm(desc="embedding chunks", unit=" chunks") as bar:
            report = store.ingest([Path(p) for p in args.paths], progress=bar.update)
        print(
            f"ingested {len(report.files_ingested)} file(s), {report.chunks} chunks; "
            f"{len(report.files_skipped)} unchanged file(s) skipped"
        )
        for problem in report.problems:
            print(f"skipped: {problem}")
        return 1 if report.problems and not report.files_ingested and not report.files_skipped else 0
    passages = store.search(" ".join(args.query), k=args.k or 3)
    if not passages:
        print("no passages yet: add some with `amg ingest PATH`")
    for rank, passage in enumerate(passages, 1):
        print(
            f"[{rank}] {passage.score:.3f}  {passage.source} "
            f"(chunk {passage.chunk}, chars {passage.start}-{passage.end})"
        )
        print("    " + " ".join(passage.text.split())[:400])
    return 0
