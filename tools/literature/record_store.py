"""The local index's records: PMID → the whole Article (compressed) and its revision; other papers by their id.

The source of truth for what the index holds; the full-text engine only finds keys. PubMed records live in
``records`` keyed by the PMID's integer, as they always have; a paper of another scheme ("doi:…", "s2:…",
tools/literature/paper_ids.py) lives in ``papers`` keyed by its id, in the same shape. WAL mode, so searches
read while an ingest writes. Beside the PubMed records: ``status`` (a paper PubMed retracted or deleted)
and ``changes`` (the latest change to each paper that the graph must hear of: revised, retracted, deleted;
``seq`` only grows, so a reader keeps how far it has read), written in the record's own transaction.
Both tables were added to existing indexes as they are opened; papers retracted in records stored before
them are found once by ``backfill_status`` (the writers run it).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import uuid
import zlib
from pathlib import Path
from typing import TypedDict

from tenacity import retry, retry_if_exception, stop_after_delay, wait_fixed

from amg.tools.batching import chunked
from amg.tools.literature.pubmed_xml import Article

SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
  pmid INTEGER PRIMARY KEY, digest TEXT NOT NULL, revised TEXT NOT NULL, year INTEGER, body BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS records_year ON records(year);
CREATE TABLE IF NOT EXISTS deleted (pmid INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS status (pmid INTEGER PRIMARY KEY, status TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS changes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, pmid INTEGER NOT NULL UNIQUE, kind TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS papers (
  id TEXT PRIMARY KEY, digest TEXT NOT NULL, revised TEXT NOT NULL, year INTEGER, body BLOB NOT NULL
);
"""
WITHDRAWN = ("retracted", "deleted")  # a paper's status in the store; no row: it stands
BACKFILLED = "status_backfilled"  # meta key: records stored before the status table were read for retractions
SQL_VARIABLES = 900
# fields an Article gained after records were first stored: written only when set, so a PubMed record's body (and
# its digest: "already held, unchanged") is what it was before them
LATER_FIELDS = ("retracted_in", "paper", "sentences")


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


def connect_wal(path: Path, check_same_thread: bool = True) -> sqlite3.Connection:
    """A connection to the SQLite file at ``path`` in WAL mode, waiting up to a minute for another writer.

    WAL is kept in the file, so it is switched on only when not on already: a switch beside another process's
    write (two syncs opening a new file at once) fails at once ("database is locked") instead of waiting out the
    timeout, so it is tried again until the other is done or has switched it."""
    db = sqlite3.connect(path, timeout=60, check_same_thread=check_same_thread)
    _switch_to_wal(db)
    return db


@retry(
    retry=retry_if_exception(lambda exc: isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)),
    wait=wait_fixed(0.1),
    stop=stop_after_delay(60),
    reraise=True,
)
def _switch_to_wal(db: sqlite3.Connection) -> None:
    if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        db.execute("PRAGMA journal_mode=WAL")


class RecordStats(TypedDict):
    records: int  # PubMed's and other papers'
    newest_year: int | None
    retracted: int


class RecordStore:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = connect_wal(path, check_same_thread=False)
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        with self.db:  # a new store has nothing to backfill
            if self.db.execute("SELECT NOT EXISTS (SELECT 1 FROM records)").fetchone()[0]:
                self.db.execute("INSERT OR IGNORE INTO meta VALUES (?, '1')", (BACKFILLED,))

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

    def write(
        self,
        articles: list[Article],
        deleted: list[str],
        *,
        bodies: dict[str, bytes] | None = None,
        changes: dict[str, str] | None = None,
    ) -> None:
        """Store ``articles`` (replacing their keys) and drop ``deleted`` (PMIDs), in one transaction.
        ``bodies``: their ``encoded`` form where already computed; ``changes``: PMID -> revised | retracted |
        deleted, journalled with the papers' status (a revised paper's status row goes: it stands again)."""
        bodies, changes = bodies or {}, changes or {}
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
            self._journal(changes)

    def _journal(self, changes: dict[str, str]) -> None:
        """Within the caller's transaction: each change replaces the paper's earlier one, with a new ``seq``."""
        withdrawn = [(int(p), kind) for p, kind in changes.items() if kind in WITHDRAWN]
        self.db.executemany("INSERT OR REPLACE INTO status VALUES (?, ?)", withdrawn)
        standing = [(int(p),) for p, kind in changes.items() if kind not in WITHDRAWN]
        self.db.executemany("DELETE FROM status WHERE pmid = ?", standing)
        journal = [(int(p), kind) for p, kind in changes.items()]
        self.db.executemany("INSERT OR REPLACE INTO changes (pmid, kind) VALUES (?, ?)", journal)

    def statuses(self, pmids: list[str]) -> dict[str, str]:
        """PMID -> retracted | deleted, for those of ``pmids`` PubMed withdrew."""
        found: dict[str, str] = {}
        for batch in chunked([int(p) for p in pmids if str(p).isdigit()], SQL_VARIABLES):
            marks = ",".join("?" * len(batch))
            for pmid, status in self.db.execute(f"SELECT pmid, status FROM status WHERE pmid IN ({marks})", batch):
                found[str(pmid)] = status
        return found

    def changes_after(self, seq: int, limit: int) -> list[tuple[int, str, str, str | None]]:
        """(seq, PMID, kind, status) of the changes after ``seq``, oldest first; status as the paper has it now."""
        rows = self.db.execute(
            """SELECT c.seq, c.pmid, c.kind, s.status FROM changes c LEFT JOIN status s ON s.pmid = c.pmid
               WHERE c.seq > ? ORDER BY c.seq LIMIT ?""",
            (seq, limit),
        )
        return [(n, str(pmid), kind, status) for n, pmid, kind, status in rows]

    def last_change(self) -> int:
        return self.db.execute("SELECT coalesce(max(seq), 0) FROM changes").fetchone()[0]

    def backfill_status(self, progress=lambda n: None) -> int:
        """Once per store: the papers retracted among records stored before the status table, journalled as
        retracted so the graph hears of them. Returns how many; ``progress(records read)``."""
        if self.db.execute("SELECT 1 FROM meta WHERE key = ?", (BACKFILLED,)).fetchone():
            return 0
        found, last = 0, -1
        while rows := self.db.execute(
            "SELECT pmid, body FROM records WHERE pmid > ? ORDER BY pmid LIMIT 20000", (last,)
        ).fetchall():
            changes = {}
            for pmid, body in rows:
                text = zlib.decompress(body)
                if (b"Retracted Publication" in text or b'"retracted_in"' in text) and Article(
                    **json.loads(text)
                ).retracted:
                    changes[str(pmid)] = "retracted"
            known = self.statuses(list(changes))
            changes = {pmid: kind for pmid, kind in changes.items() if known.get(pmid) != kind}
            with self.db:
                self._journal(changes)
            found, last = found + len(changes), rows[-1][0]
            progress(len(rows))
        with self.db:
            self.db.execute("INSERT OR IGNORE INTO meta VALUES (?, '1')", (BACKFILLED,))
        return found

    def get(self, keys: list[str]) -> dict[str, Article]:
        return {key: Article(**json.loads(zlib.decompress(body))) for key, body in self._rows("body", keys)}

    def index_id(self) -> str:
        """This store's own name (made once): a reader of ``changes`` keeps its place per store, so an index
        built again from nothing is read from its start."""
        with self.db:
            self.db.execute("INSERT OR IGNORE INTO meta VALUES ('index_id', ?)", (uuid.uuid4().hex,))
        return self.db.execute("SELECT value FROM meta WHERE key = 'index_id'").fetchone()[0]

    def stats(self) -> RecordStats:
        count, newest = self.db.execute("SELECT COUNT(*), MAX(year) FROM records").fetchone()
        papers, newest_paper = self.db.execute("SELECT COUNT(*), MAX(year) FROM papers").fetchone()
        retracted = self.db.execute("SELECT COUNT(*) FROM status WHERE status = 'retracted'").fetchone()[0]
        newest_year = max((y for y in (newest, newest_paper) if y), default=None)
        return RecordStats(records=count + papers, newest_year=newest_year, retracted=retracted)

    def close(self) -> None:
        self.db.close()
