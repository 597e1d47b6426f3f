"""The local index's records: one SQLite table, PMID → the whole Article (compressed) and its revision.

The source of truth for what the index holds; the full-text engine only finds PMIDs. WAL mode, so
searches read while an ingest writes.
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
"""
SQL_VARIABLES = 900


def encoded(article: Article) -> bytes:
    """The record as stored (JSON of its fields, in their declared order)."""
    return json.dumps(vars(article), ensure_ascii=False).encode()


def digest(body: bytes) -> str:
    """What identifies a record's content: the same record ingested twice has the same digest."""
    return hashlib.sha1(body).hexdigest()


class RecordStore:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, timeout=60, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def known(self, pmids: list[str]) -> dict[str, tuple[str, str]]:
        """PMID → (digest, revised) for those already stored."""
        found: dict[str, tuple[str, str]] = {}
        for batch in chunked([int(p) for p in pmids], SQL_VARIABLES):
            marks = ",".join("?" * len(batch))
            for pmid, dig, revised in self.db.execute(
                f"SELECT pmid, digest, revised FROM records WHERE pmid IN ({marks})", batch
            ):
                found[str(pmid)] = (dig, revised)
        return found

    def deleted(self, pmids: list[str]) -> set[str]:
        """Those of ``pmids`` an update file deleted (a deletion stands: a later baseline does not bring one back)."""
        gone: set[str] = set()
        for batch in chunked([int(p) for p in pmids], SQL_VARIABLES):
            marks = ",".join("?" * len(batch))
            gone.update(
                str(row[0]) for row in self.db.execute(f"SELECT pmid FROM deleted WHERE pmid IN ({marks})", batch)
            )
        return gone

    def write(self, articles: list[Article], deleted: list[str], bodies: dict[str, bytes] | None = None) -> None:
        """Store ``articles`` (replacing their PMIDs) and drop ``deleted``, in one transaction.
        ``bodies``: their ``encoded`` form where already computed."""
        bodies = bodies or {}
        rows = []
        for a in articles:
            body = bodies.get(a.pmid) or encoded(a)
            rows.append((int(a.pmid), digest(body), a.revised, a.year, zlib.compress(body, 1)))
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?, ?)", rows)
            self.db.executemany("DELETE FROM records WHERE pmid = ?", [(int(p),) for p in deleted])
            self.db.executemany("INSERT OR IGNORE INTO deleted VALUES (?)", [(int(p),) for p in deleted])

    def get(self, pmids: list[str]) -> dict[str, Article]:
        out: dict[str, Article] = {}
        ids = [int(p) for p in pmids if str(p).isdigit()]
        for batch in chunked(ids, SQL_VARIABLES):
            marks = ",".join("?" * len(batch))
            for pmid, body in self.db.execute(f"SELECT pmid, body FROM records WHERE pmid IN ({marks})", batch):
                out[str(pmid)] = Article(**json.loads(zlib.decompress(body)))
        return out

    def stats(self) -> dict:
        count, newest = self.db.execute("SELECT COUNT(*), MAX(year) FROM records").fetchone()
        return {"records": count, "newest_year": newest}

    def close(self) -> None:
        self.db.close()
