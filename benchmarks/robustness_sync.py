"""The campaign's `amg pubmed sync` probes, on a generated tree in NLM's layout served on loopback: the mirror
unreachable, a checksum that does not match, a transfer cut short, kill -9 while downloading and while
ingesting (then the same sync again), two syncs at once. Each must end with every record of the tree held
once (none lost, none half-written: the full-text engine and the record store agree) and the graph told."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from amg.testing.mirror_server import MirrorServer
from amg.testing.pubmed_mirror import article, deletion, free_port, write_file
from amg.tools.literature.index import LiteratureIndex, index_path
from benchmarks.robustness_runs import Amg, Run, Tally, once

FIRST_PMID = 40_000_000


def generated_tree(root: Path, records: int, seed: int) -> dict:
    """Two baseline files of ``records // 2`` each and an update file revising, deleting and retracting some;
    what a complete sync must hold afterwards."""
    rng = random.Random(seed)
    words = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=7)) for _ in range(4000)]

    def one(pmid: int, revised: str = "2024-01-01", types=("Journal Article",)) -> str:
        text = " ".join(rng.choices(words, k=30))
        return article(
            pmid,
            f"Metformin trial {pmid}",
            [("CONCLUSION", f"Metformin lowered glucose. {text}.")],
            2000 + pmid % 25,
            revised,
            types,
        )

    half = records // 2
    for n, start in enumerate((FIRST_PMID, FIRST_PMID + half), 1):
        write_file(root, "baseline", f"pubmed25n{n:04d}.xml.gz", [one(p) for p in range(start, start + half)])
    revised = [one(FIRST_PMID + n, "2025-01-01") for n in range(10)]
    retracted = [one(FIRST_PMID + 10, "2025-01-01", ("Journal Article", "Retracted Publication"))]
    write_file(root, "updatefiles", "pubmed25n0003.xml.gz", revised + retracted + [deletion(FIRST_PMID + 11)])
    return {"records": 2 * half - 1, "retracted": 1}


def counts(data: Path) -> tuple[int, int, int]:
    """(records held, records the engine finds, papers marked retracted) of ``data``'s index; zeros if none."""
    if not (index_path(data) / "records.sqlite").exists():
        return 0, 0, 0
    index = LiteratureIndex(index_path(data))
    try:
        return index.records.stats()["records"], index.fulltext.count(), index.records.stats()["retracted"]
    finally:
        index.close()


def _clean(run: Run, codes: tuple[int, ...] = (0,)) -> bool:
    return run.tracebacks == 0 and run.code in codes and not run.killed


def _sync(amg: Amg, url: str, data: Path, **kwargs) -> Run:
    return amg.run(["pubmed", "sync", "--base-url", url, "--baseline"], data, **kwargs)


def sync_probe(amg: Amg, work: Path, rng: random.Random, records: int) -> dict:
    """Every fault once; returns the tallies and the records half-written (engine and store disagreeing)."""
    tallies = {name: Tally() for name in ("pubmed sync faults", "kill -9 pubmed sync", "2 pubmed syncs at once")}
    tree = work / "nlm-tree"
    expected = generated_tree(tree, records, rng.randrange(1 << 30))
    whole = (expected["records"], expected["records"], expected["retracted"])
    half_written = 0

    def settled(tally: Tally, data: Path, note: str) -> None:
        nonlocal half_written
        held, found, retracted = counts(data)
        half_written += abs(held - found)
        tally.add((held, found, retracted) == whole, f"{note}: held {held}, found {found}, retracted {retracted}")
        tally.lost += abs(expected["records"] - held)

    faults = tallies["pubmed sync faults"]
    data = work / "sync-unreachable"
    gone = _sync(amg, f"http://127.0.0.1:{free_port()}/", data)
    one_line = [line for line in gone.err.splitlines() if line.startswith("amg: error:")]
    faults.add(
        gone.code == 2 and len(one_line) == 1 and counts(data)[0] == 0,
        f"unreachable -> {gone.code}: {gone.err[-200:]}",
        gone.tracebacks,
    )

    bad_tree, data = work / "nlm-tree-bad-md5", work / "sync-md5"
    shutil.copytree(tree, bad_tree)
    checksum = bad_tree / "baseline" / "pubmed25n0002.xml.gz.md5"
    checksum.write_text(checksum.read_text()[:-33] + "0" * 32 + "\n")
    with MirrorServer(bad_tree) as server:
        refused = _sync(amg, server.base_url, data)
        named = "pubmed25n0002.xml.gz: refused: its MD5 did not match" in refused.out
        faults.add(_clean(refused, (1,)) and named, f"md5 -> {refused.code}: {refused.out[-300:]}", refused.tracebacks)
        shutil.copy(tree / "baseline" / "pubmed25n0002.xml.gz.md5", checksum)
        fixed = _sync(amg, server.base_url, data)
        faults.add(_clean(fixed), f"after the md5 fix -> {fixed.code}: {fixed.err[-200:]}", fixed.tracebacks)
    settled(faults, data, "md5 mismatch then fixed")

    data = work / "sync-cut"
    with MirrorServer(tree, cut={"pubmed25n0001.xml.gz", "pubmed25n0003.xml.gz"}) as server:
        cut = _sync(amg, server.base_url, data)
        resumed = sum(1 for path, asked in server.requests if path.endswith(".xml.gz") and asked)
    faults.add(_clean(cut) and resumed == 2, f"cut -> {cut.code}, {resumed} resumed: {cut.err[-200:]}", cut.tracebacks)
    settled(faults, data, "cut transfers")

    killed = tallies["kill -9 pubmed sync"]
    for where, data in (("download", work / "sync-kill-download"), ("ingest", work / "sync-kill-ingest")):
        downloads = index_path(data) / "downloads"
        partial, complete = downloads / "pubmed25n0001.xml.gz.partial", downloads / "pubmed25n0001.xml.gz"
        if where == "download":
            due = once(lambda p=partial: p.exists() and p.stat().st_size > 0, 0.0)
        else:  # the file verified and renamed: its ingest is under way
            due = once(complete.exists, rng.uniform(0.0, 1.0))
        with MirrorServer(tree, seconds_per_block=0.02 if where == "download" else 0.0) as server:
            first = _sync(amg, server.base_url, data, kill_when=due)
            server.seconds_per_block = 0.0
            again = _sync(amg, server.base_url, data)
        killed.add(
            first.killed and _clean(again),
            f"{where}: killed={first.killed}, then {again.code}: {again.err[-200:]}",
            first.tracebacks + again.tracebacks,
        )
        settled(killed, data, f"killed while {where}ing, then again")

    together, data = tallies["2 pubmed syncs at once"], work / "sync-together"
    with MirrorServer(tree, seconds_per_block=0.01) as server:
        runs = amg.run_together([["pubmed", "sync", "--base-url", server.base_url, "--baseline"]] * 2, data)
    for run in runs:
        lines = [line for line in run.err.splitlines() if line.startswith("amg: ")]
        stopped = run.code == 3 and len(lines) == 1 and "another `amg pubmed sync`" in lines[0]
        together.add(_clean(run) or stopped, f"{run.code}: {run.err[-200:]}", run.tracebacks)
    settled(together, data, "two at once")  # the one that went on holds everything
    return {"tallies": tallies, "half_written_records": half_written}
