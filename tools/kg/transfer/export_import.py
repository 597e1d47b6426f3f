"""Export and import of the graph: JSON lines (.jsonl) or GraphML (.graphml).

Records: entity, alias, evidence, support, relation, seed_state. Import restores
properties exactly (timestamps and history included) rather than re-scoring them.

Export streams the store's records (``TransferStore.export_records``: one query per kind,
references before what they point to, so a graph written to meanwhile still exports
self-consistent) into a temporary file beside the target, renamed into place only when
complete: an interrupted export leaves no file under the target name.

Import is all-or-nothing for bad input: every record is checked first against the rules
of online writes (tools/kg/transfer/import_rules.py; every relation's entities and evidence must be
in the file or already in the graph), and if any is rejected nothing is written and one
error lists the rejected rows by line (JSONL) or element id (GraphML). A valid file is then
written in idempotent batches, so an import interrupted while writing is completed by
running it again.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from amg.tools.batching import chunked
from amg.tools.kg.store.protocols import TransferStore
from amg.tools.kg.store.rows import ExportRow
from amg.tools.kg.transfer.graphml import read_graphml, write_graphml
from amg.tools.kg.transfer.import_rules import Rejected, check_record, identity, references

PAGE = 2000
SHOWN_PROBLEMS = 20
ORDER = ("entity", "evidence", "alias", "support", "relation", "seed_state")


def export_graph(store: TransferStore, path: Path) -> dict[str, int]:
    """Write the graph to ``path`` (GraphML if it ends in .graphml); counts per record kind."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path} is a folder; name a .jsonl or .graphml file")
    counts: dict[str, int] = {}

    def counted() -> Iterator[ExportRow]:
        for row in store.export_records():
            counts[row["kind"]] = counts.get(row["kind"], 0) + 1
            yield row

    with _complete_or_nothing(path) as out:
        if path.suffix == ".graphml":
            write_graphml(counted(), out)
        else:
            out.writelines(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in counted())
    return counts


@contextmanager
def _complete_or_nothing(path: Path) -> Iterator[IO[str]]:
    """A text file that appears under ``path`` only if the block completes (a temporary file renamed)."""
    try:
        fd, partial = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent.resolve())
    except OSError as exc:
        raise ValueError(f"cannot write {path} ({exc.strerror})") from None
    try:
        os.chmod(fd, 0o666 & ~_umask())  # as an ordinary new file, not mkstemp's 0600
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            yield out
        os.replace(partial, path)
    except OSError as exc:  # disk full, target not replaceable
        Path(partial).unlink(missing_ok=True)
        raise ValueError(f"cannot write {path} ({exc.strerror})") from None
    except BaseException:  # Ctrl-C or a failed read: no half file
        Path(partial).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def import_graph(store: TransferStore, path: Path) -> dict[str, int]:
    """Check every record of ``path``, then write them all, or raise ValueError and write nothing."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    try:
        grouped, problems, needed, total = _checked(path)
    except OSError as exc:
        raise ValueError(f"cannot read {path} ({exc.strerror})") from None
    problems += _unresolved(store, grouped, needed)
    if problems:
        raise ValueError(_report(path, problems, total))
    store.ensure_schema()
    for kind in ORDER:
        for batch in chunked(grouped[kind], PAGE):
            store.restore(kind, batch)
    return {kind: len(rows) for kind, rows in grouped.items() if rows}


def _checked(
    path: Path,
) -> tuple[dict[str, list[ExportRow]], list[tuple[str, str]], dict[tuple[str, str], str], int]:
    """Cleaned records by kind, (locator, problem) pairs, references to resolve, records read."""
    grouped: dict[str, list[ExportRow]] = {kind: [] for kind in ORDER}
    problems: list[tuple[str, str]] = []
    needed: dict[tuple[str, str], str] = {}  # (label, id) -> first locator needing it
    seen: dict[tuple[str, ...], str] = {}
    total = 0
    reader = read_graphml(path) if path.suffix == ".graphml" else _read_jsonl(path)
    for locator, raw in reader:
        total += 1
        try:
            if isinstance(raw, Rejected):
                raise raw
            row = check_record(raw)
            ident = identity(row)
            if ident in seen:
                raise Rejected(f"duplicate of {seen[ident]}")
        except Rejected as exc:
            problems.append((locator, f"{_kind_of(raw)}{exc}"))
            continue
        if ident is not None:
            seen[ident] = locator
        grouped[row["kind"]].append(row)
        for ref in references(row):
            needed.setdefault(ref, locator)
    return grouped, problems, needed, total


def _kind_of(raw: object) -> str:
    kind = raw.get("kind") if isinstance(raw, dict) else None
    return f"{kind}: " if isinstance(kind, str) and len(kind) < 20 else ""


def _read_jsonl(path: Path) -> Iterator[tuple[str, object]]:
    with path.open("rb") as lines:
        for number, raw in enumerate(lines, 1):
            locator = f"line {number}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield locator, Rejected(f"not UTF-8 text (byte {exc.start + 1})")
                continue
            if not line.strip():
                continue  # blank lines are allowed
            try:
                yield locator, json.loads(line)
            except RecursionError:
                yield locator, Rejected("JSON nested too deeply")
            except json.JSONDecodeError as exc:
                yield locator, Rejected(f"not JSON ({exc.msg} at column {exc.colno})")
            except ValueError as exc:  # valid JSON Python will not read: an integer of more than 4300 digits
                yield locator, Rejected(f"cannot be read as JSON ({str(exc)[:80]})")


def _unresolved(
    store: TransferStore, grouped: dict[str, list[ExportRow]], needed: dict[tuple[str, str], str]
) -> list[tuple[str, str]]:
    """Problems for references that are neither in the file nor in the graph."""
    in_file = {("entity", r["key"]) for r in grouped["entity"] if r["kind"] == "entity"} | {
        ("evidence", r["id"]) for r in grouped["evidence"] if r["kind"] == "evidence"
    }
    outside = [ref for ref in needed if ref not in in_file]
    found: set[tuple[str, str]] = set()
    for batch in chunked([i for label, i in outside if label == "entity"], PAGE):
        found |= {("entity", k) for k in store.entities(batch)}
    for batch in chunked([i for label, i in outside if label == "evidence"], PAGE):
        found |= {("evidence", v["id"]) for v in store.evidence(batch)}
    return [
        (needed[ref], f"{ref[0]} {ref[1]!r:.80} is neither in the file nor in the graph")
        for ref in outside
        if ref not in found
    ]


def _report(path: Path, problems: list[tuple[str, str]], total: int) -> str:
    shown = [f"  {locator}: {problem}" for locator, problem in problems[:SHOWN_PROBLEMS]]
    more = len(problems) - SHOWN_PROBLEMS
    return "\n".join(
        [f"{path}: {len(problems):,} problem(s) in {total:,} records; nothing was imported"]
        + shown
        + ([f"  ... and {more:,} more"] if more > 0 else [])
    )
