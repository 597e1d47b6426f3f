"""Input refused before anything starts: empty or oversized text, missing files, an empty id. Each command's check
runs on its parsed arguments and imports nothing heavy (no graph, model or embedder), so a user mistake is said at
once instead of after the servers start."""

from __future__ import annotations

import argparse
from pathlib import Path

from amg.tools.question_input import claim_to_check, question_problem, visible

SUBCOMMANDS = ("pubmed", "papers")  # `amg ingest pubmed FILE…`: the first word names where the files go


def problem(args: argparse.Namespace) -> str | None:
    """Why the command cannot run on this input, or None."""
    command = args.command
    if command == "ask":
        if getattr(args, "record", None) is not None:
            return None if visible(args.record) else "--record takes a stored patient's id (amg records list)"
        return question_problem(args.question or "")
    if command == "check":
        args.derived_claim, refused = claim_to_check(args.claim, asked=True)  # derived once: the graph is given it
        return refused
    if command == "search":
        words = [w for w in args.query if w not in SUBCOMMANDS[:1]] if args.query[:1] == ["pubmed"] else args.query
        return None if visible(" ".join(words)) else "search query is empty"
    if command == "ingest":
        paths = args.paths[1:] if args.paths[:1] and args.paths[0] in SUBCOMMANDS else args.paths
        return _any_file(paths)
    if command == "bench":
        return _files([args.dataset]) or (_files([args.records]) if getattr(args, "records", None) else None)
    if command == "build" and args.topics:
        return _files([args.topics])
    if command == "build" and args.questions:
        return _files([args.questions])
    if command == "kg" and args.kg_command in ("show", "history"):
        return None if visible(args.entity) else 'give an entity\'s name (amg kg show "metformin")'
    if command == "kg" and args.kg_command == "import":
        return _files([args.path])
    if command == "records" and args.records_command == "ingest":
        return _any_file(args.paths)
    if command == "records" and args.records_command == "show":
        return None if visible(args.id) else "give a stored patient's id (amg records list)"
    if command == "records" and args.records_command == "delete":
        empty = [i for i in args.ids if not visible(i)]
        return "an id to delete is empty" if empty else None
    return None


def _any_file(paths: list[str]) -> str | None:
    """A batch of files goes ahead when one of them is there (the command reports the missing ones)."""
    if not paths:
        return "name at least one file"
    if any(Path(p).expanduser().exists() for p in paths):
        return None
    return f"{paths[0]}: no such file or folder" if len(paths) == 1 else "none of these files or folders exists"


def _files(paths: list[str], folders: bool = False) -> str | None:
    if not paths:
        return "name at least one file"
    for name in paths:
        path = Path(name).expanduser()
        if not path.exists():
            return f"{name}: no such file" + (" or folder" if folders else "")
        if not folders and path.is_dir():
            return f"{name}: a folder, not a file"
    return None
