"""The sync procedure (tools/literature/sync.py) over a mirror read from a folder: NLM's order, the ledger, MD5
refusals, resumed partial files and a file left complete by a run killed while ingesting. The transfers over
real HTTP are tests/e2e/test_pubmed_sync.py's."""

from __future__ import annotations

import shutil

import pytest
from filelock import FileLock

from amg.testing.pubmed_mirror import FIXTURE_TREE
from amg.tools.literature.index import LiteratureIndex
from amg.tools.literature.mirror import RemoteFile, TruncatedTransfer, in_nlm_order, parse_md5
from amg.tools.literature.sync import Ledger, SyncBusy, sync


class FolderMirror:
    """The Mirror interface over a local copy of the tree; ``cut`` names files whose first transfer breaks off."""

    def __init__(self, root, cut=()):
        self.root, self.cut, self.downloads = root, set(cut), []

    def listing(self, folder):
        return in_nlm_order(folder, [p.name for p in (self.root / folder).iterdir()])

    def md5(self, file: RemoteFile):
        return parse_md5((self.root / file.folder / f"{file.name}.md5").read_text(), file.name)

    def download(self, file: RemoteFile, partial, on_bytes):
        body = (self.root / file.folder / file.name).read_bytes()
        start = partial.stat().st_size if partial.exists() else 0
        self.downloads.append((file.name, start))
        end = len(body) // 2 if file.name in self.cut else len(body)
        self.cut.discard(file.name)
        with open(partial, "ab") as out:
            out.write(body[start:end])
        on_bytes(end, len(body))
        if end < len(body):
            raise TruncatedTransfer(f"the transfer ended at byte {end} of {len(body)}")


@pytest.fixture
def tree(tmp_path):
    return shutil.copytree(FIXTURE_TREE, tmp_path / "mirror")


@pytest.fixture
def index(tmp_path):
    idx = LiteratureIndex(tmp_path / "pubmed")
    yield idx
    idx.close()


def test_a_first_full_load_takes_every_file_in_nlm_order_and_a_rerun_none(index, tree):
    mirror = FolderMirror(tree)
    report = sync(index, mirror, baseline=True)
    order = ["pubmed25n0001.xml.gz", "pubmed25n0002.xml.gz", "pubmed25n0003.xml.gz", "pubmed25n0004.xml.gz"]
    assert [name for name, _ in mirror.downloads] == order == report.fetched
    assert (report.added, report.revised, report.deleted, report.retracted) == (5, 2, 1, 1)
    assert not report.failed and report.skipped == 0
    assert index.stats()["records"] == 4 and not list((index.path / "downloads").iterdir()), "nothing left behind"
    ledger = Ledger(index.path / "sync.sqlite")
    assert ledger.names() == set(order) and ledger.last()[0] == "pubmed25n0004.xml.gz"
    ledger.close()
    again = sync(index, FolderMirror(tree), baseline=True)
    assert (again.fetched, again.skipped, again.added) == ([], 4, 0)
    updates = sync(index, FolderMirror(tree), baseline=False)
    assert (updates.listed, updates.skipped) == (2, 2), "without --baseline only the update files are listed"


def test_an_md5_mismatch_refuses_the_file_and_the_next_sync_fetches_it(index, tree):
    sync(index, FolderMirror(tree), baseline=True)  # the baseline and both updates... then a new one arrives
    new = tree / "updatefiles" / "pubmed25n0005.xml.gz"
    shutil.copy(tree / "updatefiles" / "pubmed25n0003.xml.gz", new)
    (tree / "updatefiles" / "pubmed25n0005.xml.gz.md5").write_text(f"MD5({new.name})= {'0' * 32}\n")
    shutil.copy(tree / "updatefiles" / "pubmed25n0004.xml.gz", tree / "updatefiles" / "pubmed25n0006.xml.gz")
    shutil.copy(tree / "updatefiles" / "pubmed25n0004.xml.gz.md5", tree / "updatefiles" / "pubmed25n0006.xml.gz.md5")
    (tree / "updatefiles" / "pubmed25n0006.xml.gz.md5").write_text(
        (tree / "updatefiles" / "pubmed25n0004.xml.gz.md5").read_text().replace("0004", "0006")
    )
    report = sync(index, FolderMirror(tree), baseline=False)
    assert list(report.failed) == ["pubmed25n0005.xml.gz"] and "its MD5 did not match" in report.failed[new.name]
    assert report.fetched == [] and report.waiting == 1, "the file after it waits: updates stay in order"
    assert not list((index.path / "downloads").iterdir()), "the refused file is not kept"
    assert new.name not in Ledger(index.path / "sync.sqlite").names()
    (tree / "updatefiles" / "pubmed25n0005.xml.gz.md5").write_text(
        (tree / "updatefiles" / "pubmed25n0003.xml.gz.md5").read_text().replace("0003", "0005")
    )
    mirror = FolderMirror(tree)
    fixed = sync(index, mirror, baseline=False)
    assert fixed.fetched == ["pubmed25n0005.xml.gz", "pubmed25n0006.xml.gz"] and not fixed.failed


def test_a_broken_transfer_is_resumed_where_it_stopped(index, tree):
    mirror = FolderMirror(tree, cut={"pubmed25n0002.xml.gz"})
    first = sync(index, mirror, baseline=True)
    assert first.fetched == ["pubmed25n0001.xml.gz"] and "transfer ended" in first.failed["pubmed25n0002.xml.gz"]
    assert (index.path / "downloads" / "pubmed25n0002.xml.gz.partial").stat().st_size > 0
    second = sync(index, mirror, baseline=True)
    resumed = [start for name, start in mirror.downloads if name == "pubmed25n0002.xml.gz"]
    assert resumed[0] == 0 and resumed[1] > 0, "the second transfer starts where the first broke off"
    assert second.fetched[0] == "pubmed25n0002.xml.gz" and index.stats()["records"] == 4


def test_a_file_left_complete_by_a_killed_ingest_is_ingested_not_fetched_again(index, tree):
    downloads = index.path / "downloads"
    downloads.mkdir(parents=True)
    shutil.copy(tree / "baseline" / "pubmed25n0001.xml.gz", downloads)
    mirror = FolderMirror(tree)
    report = sync(index, mirror, baseline=True)
    assert "pubmed25n0001.xml.gz" not in [name for name, _ in mirror.downloads]
    assert report.fetched[0] == "pubmed25n0001.xml.gz" and index.fetch(["10354335"])


def test_a_second_sync_on_the_same_index_stops_at_once(index, tree):
    with FileLock(str(index.path / "sync.lock")):
        with pytest.raises(SyncBusy, match="another `amg pubmed sync` is running"):
            sync(index, FolderMirror(tree), baseline=True)
    assert index.stats()["records"] == 0
