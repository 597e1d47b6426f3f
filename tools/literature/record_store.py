"""The local index's records: PMID → the whole Article (compressed) and its revision; other papers by their id.

The source of truth for what the index holds; the full-text engine only finds keys. PubMed records live in
``records`` keyed by the PMID's integer, as they always have; a paper of another scheme ("doi:…", "s2:…",
tools/literature/paper_ids.py) lives in ``papers`` keyed by its id, in the same shape. WAL mode, so searches
read while an ingest writes.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zlib
from pathlib import Path

from amg.tools.batching import chunked
from amg.tools.literature.pubmed_xml import Article

SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
  pmid INTEGER PRIMARY KEY, digest TEXT NOT NULL, revised TEXT NOT NULL, year INTEGER, body BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS records_year ON records(year);
CREATE TABLE IF NOT EXISTS deleted (pmid INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS papers (
  id TEXT PRIMARY KEY, digest TEXT NOT NULL, revised TEXT NOT NULL, year INTEGER, body BLOB NOT NULL
);
"""
SQL_VARIABLES = 900
# fields an Article gained after records were first stored: written only when set, so a PubMed record's body (and
# its digest: "already held, unchanged") is what it was before them
LATER_FIELDS = ("paper", "sentences")


def encoded(article: Article) -> bytes:
    """The record as stored (JSON of its fields, in their declared order; later fields only when set)."""
    fields = {k: v for k, v in vars(article).items() if k not in LATER_FIELDS or v}
    return json.dumps(fields, ensure_ascii=False).encode()


def digest(body: bytes) -> str:
    """What identifies a record's content: the same record ingested twice has the same digest."""
    return hashlib.sha1(body).hexdigest()


def _split(keys: list[str]) -> tuple[list[int], list[str]]:
    """PMIDs (as integers) and the other papers' ids."""
    pmids = [int(k) for k in keys if str(k).isdigit()]
    return pmids, [str(k) for k in keys if not str(k).isdigit()]


class RecordStore:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, timeout=60, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def _rows(self, columns: str, keys: list[str]):
        """(key, *columns) of the stored records among ``keys``, from whichever table holds each."""
        pmids, others = _split(keys)
        for table, key, ids in (("records", "pmid", pmids), ("papers", "id", others)):
            for batch in chunked(ids, SQL_VARIABLES):
                marks = ",".join("?" * len(batch))
                for row in self.db.execute(f"SELECT {key}, {columns} FROM {table} WHERE {key} IN ({marks})", batch):
                    yield (str(row[0]), *row[1:])

    def known(self, keys: list[str]) -> dict[str, tuple[str, str]]:
        """Key → (digest, revised) for those already stored."""
        return {key: (dig, revised) for key, dig, revised in self._rows("digest, revised", keys)}

    def deleted(self, pmids: list[str]) -> set[str]:
        """Those of ``pmids`` an update file deleted (a deletion stands: a later baseline does not bring one back)."""
        gone: set[str] = set()
        for batch in chunked(_split(pmids)[0], SQL_VARIABLES):
            marks = ",".join("?" * len(batch))
            gone.update(
                str(row[0]) for row in self.db.execute(f"SELECT pmid FROM deleted WHERE pmid IN ({marks})", batch)
            )
        return gone

    def write(self, articles: list[Article], deleted: list[str], bodies: dict[str, bytes] | None = None) -> None:
        """Store ``articles`` (replacing their keys) and drop ``deleted`` (PMIDs), in one transaction.
        ``bodies``: their ``encoded`` form where already computed."""
        bodies = bodies or {}
        rows: dict[str, list] = {"records": [], "papers": []}
        for a in articles:
            body = bodies.get(a.key) or encoded(a)
            table, key = ("records", int(a.pmid)) if a.pmid else ("papers", a.paper)
            rows[table].append((key, digest(body), a.revised, a.year, zlib.compress(body, 1)))
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?, ?)", rows["records"])
            if rows["papers"]:
                self.db.executemany("INSERT OR REPLACE INTO papers VALUES (?, ?, ?, ?, ?)", rows["papers"])
            self.db.executemany("DELETE FROM records WHERE pmid = ?", [(int(p),) for p in deleted])
            self.db.executemany("INSERT OR IGNORE INTO deleted VALUES (?)", [(int(p),) for p in deleted])

    def get(self, keys: list[str]) -> dict[str, Article]:
        return {key: Article(**json.loads(zlib.decompress(body))) for key, body in self._rows("body", keys)}

    def stats(self) -> dict:
        count, newest = self.db.execute("SELECT COUNT(*), MAX(year) FROM records").fetchone()
        papers, newest_paper = self.db.execute("SELECT COUNT(*), MAX(year) FROM papers").fetchone()
        return {"records": count + papers, "newest_year": max((y for y in (newest, newest_paper) if y), default=None)}

    def close(self) -> None:
        self.db.close()
