"""On-disk cache of remote responses (SQLite), keyed by request, with a TTL.

A corrupt cache file is moved aside and rebuilt: a cache is never a reason to fail.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path


class RequestCache:
    def __init__(self, path: Path, ttl_s: float = 7 * 24 * 3600):
        self.path, self.ttl_s = path, ttl_s
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(self.path, check_same_thread=False, timeout=10)
            db.execute("CREATE TABLE IF NOT EXISTS cache (key TEXT PRIMARY KEY, at REAL, body BLOB)")
            db.execute("SELECT count(*) FROM cache").fetchone()
            return db
        except sqlite3.DatabaseError:
            self.path.replace(self.path.with_suffix(f".corrupt-{int(time.time())}"))
            db = sqlite3.connect(self.path, check_same_thread=False, timeout=10)
            db.execute("CREATE TABLE IF NOT EXISTS cache (key TEXT PRIMARY KEY, at REAL, body BLOB)")
            return db

    @staticmethod
    def key(namespace: str, params: dict) -> str:
        blob = json.dumps([namespace, params], sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()

    def get(self, key: str) -> bytes | None:
        with self._lock:
            try:
                row = self._db.execute("SELECT at, body FROM cache WHERE key = ?", (key,)).fetchone()
            except sqlite3.DatabaseError:
                return None
        if row is None or time.time() - row[0] > self.ttl_s:
            return None
        return row[1]

    def put(self, key: str, body: bytes) -> None:
        with self._lock:
            try:
                with self._db:
                    self._db.execute("REPLACE INTO cache VALUES (?, ?, ?)", (key, time.time(), body))
            except sqlite3.DatabaseError:
                pass  # caching is best effort
