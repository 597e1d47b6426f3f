"""`amg pubmed sync` against real HTTP servers on loopback (``python -m http.server`` over the fixture tree in
NLM's layout, and amg.testing.mirror_server for Range, cut and slow transfers), with the real graph server:
what the update files retract, delete and revise reaches the graph; every fault leaves index and graph whole."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

from amg.cli.pubmed_sync import sync_and_report
from amg.graphs.context import Context
from amg.graphs.literature_sync import apply_changes
from amg.testing.mirror_server import MirrorServer
from amg.testing.pubmed_mirror import FIXTURE_TREE, article, serve, write_file
from amg.tools.kg.records import EvidenceRecord, RelationRecord
from amg.tools.literature.index import LiteratureIndex, index_path
from amg.tools.literature.ingest import ingest_files

ROOT = Path(__file__).resolve().parents[2]
DAY = "pmid:10354335"
SENTENCE = "Medical students can contribute to quality assurance programmes in day surgery."
LACTIC = "Lactic acidosis was rare among metformin users with moderate renal impairment."


def stage_findings(store) -> None:
    """What the graph learned earlier from three papers of the tree (as the finding reader writes them)."""
    papers = [
        EvidenceRecord(id=DAY, kind="pubmed", title="Can medical students contribute?", pmid="10354335"),
        EvidenceRecord(id="pmid:20000001", kind="pubmed", title="Metformin and lactic acidosis", pmid="20000001"),
        EvidenceRecord(id="pmid:20000002", kind="pubmed", title="Inhaled corticosteroids", pmid="20000002"),
    ]
    found = [
        RelationRecord(
            "medical students",
            "quality assurance programmes",
            type="improves",
            confidence=0.8,
            evidence_ids=[DAY],
            score_raw=8,
            description=SENTENCE,
            origin="pubmed",
        ),
        RelationRecord(
            "metformin",
            "lactic acidosis",
            type="no_effect_on",
            confidence=0.7,
            evidence_ids=["pmid:20000001"],
            score_raw=7,
            description=LACTIC,
            origin="pubmed",
        ),
        RelationRecord(
            "inhaled corticosteroids",
            "asthma exacerbation",
            type="improves",
            confidence=0.7,
            evidence_ids=["pmid:20000002"],
            score_raw=7,
            description="",
            origin="x",
        ),
    ]
    store.upsert(
        evidence=papers,
        relations=found,
        supports=[(r.source, r.evidence_ids[0]) for r in found] + [(r.target, r.evidence_ids[0]) for r in found],
    )


def ingested(tmp_path: Path, *names: str) -> LiteratureIndex:
    index = LiteratureIndex(tmp_path / "pubmed")
    for name in names:
        folder = "baseline" if name <= "pubmed25n0002.xml.gz" else "updatefiles"
        ingest_files(index, [FIXTURE_TREE / folder / name], progress=lambda p, s: lambda n: None)
    return index


def test_retracted_and_deleted_papers_weaken_what_rests_on_them_once(store, tmp_path):
    stage_findings(store)
    index = ingested(tmp_path, "pubmed25n0001.xml.gz", "pubmed25n0002.xml.gz")
    assert apply_changes(store, index)["changes_read"] == 0, "a first load changes nothing the graph holds"
    for name in ("pubmed25n0003.xml.gz", "pubmed25n0004.xml.gz"):
        ingest_files(index, [FIXTURE_TREE / "updatefiles" / name], progress=lambda p, s: lambda n: None)
    done = apply_changes(store, index)
    assert done == {"changes_read": 3, "papers_withdrawn": 2, "relations_weakened": 2, "queued_for_reread": 1}
    [day] = store.outgoing("medical student", "improves")
    assert (day["props"]["status"], day["props"]["confidence"]) == ("weakened", 0.0)
    event = json.loads(day["props"]["history"][-1])
    assert (event["event"], event["previous"], event["evidence_ids"]) == ("retracted", 0.8, [DAY])
    assert event["reason"] == "PMID 10354335 was retracted (PubMed marks it Retracted Publication)"
    [gone] = store.outgoing("inhaled corticosteroid", "improves")
    assert json.loads(gone["props"]["history"][-1])["event"] == "deleted"
    marked = {e["id"]: e.get("status") for e in store.evidence([DAY, "pmid:20000001", "pmid:20000002"])}
    assert marked == {DAY: "retracted", "pmid:20000001": None, "pmid:20000002": "deleted"}
    [metformin] = store.outgoing("metformin", "no_effect_on")
    assert metformin["props"]["status"] == "active", "a revised paper's finding stands until it is re-read"
    assert [p["id"] for p in store.reread_queue(10)] == ["pmid:20000001"]
    index.records.db.execute("DELETE FROM meta WHERE key = 'status_backfilled'")  # as if migrated again
    index.records.db.commit()
    assert apply_changes(store, index)["changes_read"] == 0
    store.save_literature_cursor(index.records.index_id(), 0)  # read the whole journal again: nothing changes twice
    assert apply_changes(store, index)["papers_withdrawn"] == 0
    assert len(store.outgoing("medical student", "improves")[0]["props"]["history"]) == 2
    index.close()


def test_kg_export_carries_the_marks_and_imports_back(store, tmp_path):
    from amg.tools.kg.transfer.export_import import export_graph, import_graph

    stage_findings(store)
    index = ingested(tmp_path, *(f"pubmed25n000{n}.xml.gz" for n in range(1, 5)))
    apply_changes(store, index)
    index.close()
    export_graph(store, tmp_path / "graph.jsonl")
    rows = [json.loads(line) for line in (tmp_path / "graph.jsonl").read_text().splitlines()]
    [paper] = [r for r in rows if r["kind"] == "evidence" and r["id"] == DAY]
    assert paper["props"]["status"] == "retracted" and "retracted" in paper["props"]["status_note"]
    [finding] = [
        r
        for r in rows
        if r["kind"] == "relation" and r["props"]["type"] == "improves" and DAY in r["props"]["evidence_ids"]
    ]
    assert finding["props"]["status"] == "weakened"
    import_graph(store, tmp_path / "graph.jsonl")
    assert store.evidence([DAY])[0]["status"] == "retracted"


def run_amg(args: list[str], data: Path, **env) -> subprocess.CompletedProcess:
    full = {**os.environ, "AMG_DATA_DIR": str(data), **env}
    return subprocess.run(
        [sys.executable, "-m", "amg.cli.main", *args], cwd=ROOT, env=full, capture_output=True, text=True, timeout=300
    )


def test_a_first_full_load_then_a_rerun_over_http_server(tmp_path):
    with serve(FIXTURE_TREE) as url:
        first = run_amg(["pubmed", "sync", "--base-url", url, "--baseline"], tmp_path)
        assert first.returncode == 0, first.stderr
        assert f"PubMed sync from {url}: 4 file(s) fetched and ingested, 0 already ingested, 0 failed" in first.stdout
        assert "records: added 5, revised 2, deleted 1, retracted 1" in first.stdout
        again = run_amg(["pubmed", "sync", "--base-url", url], tmp_path)
        assert again.returncode == 0 and "0 file(s) fetched and ingested, 2 already ingested" in again.stdout
    search = run_amg(["search", "pubmed", "medical students day surgery", "--json"], tmp_path)
    assert json.loads(search.stdout)["results"][0]["pmid"] == "10354335"


def test_an_unreachable_mirror_is_one_line_and_leaves_the_index_as_it_was(tmp_path):
    with serve(FIXTURE_TREE) as url:
        assert run_amg(["pubmed", "sync", "--base-url", url, "--baseline"], tmp_path).returncode == 0
    before = (tmp_path / "pubmed" / "records.sqlite").read_bytes()
    closed = run_amg(["pubmed", "sync", "--base-url", url], tmp_path)  # the server is gone: nothing answers
    assert closed.returncode == 2 and closed.stdout == ""
    assert closed.stderr.startswith("amg: error: PubMed mirror") and "unreachable" in closed.stderr
    assert len(closed.stderr.strip().splitlines()) == 1 and "Traceback" not in closed.stderr
    assert (tmp_path / "pubmed" / "records.sqlite").read_bytes() == before
    wrong = run_amg(["pubmed", "sync", "--base-url", "ftp://example.invalid/"], tmp_path)
    assert (
        wrong.returncode == 2
        and wrong.stderr.strip() == "amg: error: PubMed mirror 'ftp://example.invalid/' is not an http(s) URL"
    )
    fresh = run_amg(["pubmed", "sync", "--base-url", url], tmp_path / "fresh")
    assert fresh.returncode == 2 and "the first sync takes the baseline" in fresh.stderr


def test_an_md5_mismatch_is_refused_named_and_fetched_next_time(tmp_path):
    tree = shutil.copytree(FIXTURE_TREE, tmp_path / "tree")
    good = (tree / "updatefiles" / "pubmed25n0004.xml.gz.md5").read_text()
    (tree / "updatefiles" / "pubmed25n0004.xml.gz.md5").write_text(good.replace(good.split()[-1], "0" * 32))
    with serve(tree) as url:
        bad = run_amg(["pubmed", "sync", "--base-url", url, "--baseline"], tmp_path / "data")
        assert bad.returncode == 1 and "3 file(s) fetched and ingested, 0 already ingested, 1 failed" in bad.stdout
        assert "failed: pubmed25n0004.xml.gz: refused: its MD5 did not match" in bad.stdout
        index = LiteratureIndex(index_path(tmp_path / "data"))
        assert not index.records.statuses(["10354335"]), "the refused file's retraction is not applied"
        index.close()
        (tree / "updatefiles" / "pubmed25n0004.xml.gz.md5").write_text(good)
        fixed = run_amg(["pubmed", "sync", "--base-url", url], tmp_path / "data")
    assert fixed.returncode == 0 and "1 file(s) fetched and ingested, 1 already ingested" in fixed.stdout
    assert "retracted 1" in fixed.stdout


def test_a_cut_transfer_is_resumed_with_a_range_request(tmp_path, store):
    with MirrorServer(FIXTURE_TREE, cut={"pubmed25n0001.xml.gz"}) as server:
        ctx = Context(data_dir=str(tmp_path), pubmed_mirror=server.base_url)
        code = sync_and_report(SimpleNamespace(base_url=None, baseline=True), ctx, lambda: store)
        assert code == 0
        ranges = [r for path, r in server.requests if path.endswith("pubmed25n0001.xml.gz")]
        assert ranges[0] is None and ranges[1].startswith("bytes=") and ranges[1] != "bytes=0-"
    index = LiteratureIndex(index_path(tmp_path))
    assert index.stats()["records"] == 4 and index.in_step()
    index.close()


def _killed_mid_download(tmp_path: Path, server: MirrorServer) -> subprocess.CompletedProcess:
    env = {**os.environ, "AMG_DATA_DIR": str(tmp_path / "data")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "amg.cli.main", "pubmed", "sync", "--base-url", server.base_url, "--baseline"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    partial = tmp_path / "data" / "pubmed" / "downloads" / "pubmed25n0001.xml.gz.partial"
    deadline = time.monotonic() + 60
    while not (partial.exists() and partial.stat().st_size > 0) and time.monotonic() < deadline:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert partial.exists() and 0 < partial.stat().st_size


def test_kill_9_mid_download_then_the_next_sync_resumes(tmp_path):
    big = tmp_path / "tree"
    rng = random.Random(0)  # words that do not compress away: the file spans many blocks of the slow server
    words = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=8)) for _ in range(6000)]
    records = [article(30000000 + n, f"Trial {n}", [("", " ".join(words[2 * n : 2 * n + 40]))]) for n in range(3000)]
    write_file(big, "baseline", "pubmed25n0001.xml.gz", records)
    (big / "updatefiles").mkdir()
    with MirrorServer(big, seconds_per_block=0.05) as server:
        _killed_mid_download(tmp_path, server)
        server.seconds_per_block = 0.0
        resumed = run_amg(["pubmed", "sync", "--base-url", server.base_url, "--baseline"], tmp_path / "data")
        assert resumed.returncode == 0, resumed.stderr
        assert "1 file(s) fetched and ingested" in resumed.stdout and "added 3,000" in resumed.stdout
        assert [r for p, r in server.requests if p.endswith(".xml.gz")][-1] not in (None, "bytes=0-")


def test_two_syncs_at_once_one_stops_with_one_line(tmp_path):
    with MirrorServer(FIXTURE_TREE, seconds_per_block=0.2) as server:
        env = {**os.environ, "AMG_DATA_DIR": str(tmp_path)}
        argv = [sys.executable, "-m", "amg.cli.main", "pubmed", "sync", "--base-url", server.base_url, "--baseline"]
        first = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not any(p.endswith(".xml.gz") for p, _ in server.requests) and time.monotonic() < deadline:
            time.sleep(0.05)  # the first sync holds the lock once it is downloading (slowly: 0.2 s a block)
        assert first.poll() is None, "the first sync is still downloading when the second starts"
        second = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        outs = [(p.wait(timeout=300), *p.communicate()) for p in (first, second)]
    assert [code for code, _, _ in outs] == [0, 3], outs
    err = outs[1][2]
    assert err.strip().startswith("amg: another `amg pubmed sync` is running on") and len(err.splitlines()) == 1
    index = LiteratureIndex(index_path(tmp_path))
    assert index.stats()["records"] == 4 and index.in_step()
    index.close()
