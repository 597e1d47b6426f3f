"""Sentence vectors of the index's papers, computed once and kept beside the index (``sentence_vectors.sqlite``).

A claim check compares the claim with every sentence of the papers BM25 found (re-ranking them and choosing the
sentences worth reading); embedding a paper's sentences costs ~50 ms here, so each paper is embedded the first
time it is a candidate and read back after. Vectors are kept per embedding model and by the sentences' digest, so
a revised record or another embedder never reads stale ones. ``embed``: texts → unit vectors (the caller's model).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from amg.tools.batching import chunked
from amg.tools.literature.pubmed_xml import Article
from amg.tools.literature.record_store import connect_wal

SQL_VARIABLES = 900
Embed = Callable[[list[str]], list[list[float]]]
_COLUMNS = "(key TEXT, model TEXT, digest TEXT, dim INTEGER, body BLOB, PRIMARY KEY (key, model))"
SCHEMA = (  # a paper's sentences' vectors; its title's
    "CREATE TABLE IF NOT EXISTS vectors " + _COLUMNS,
    "CREATE TABLE IF NOT EXISTS titles " + _COLUMNS,
)


def sentences_digest(sentences: list[str]) -> str:
    return hashlib.sha1("\n".join(sentences).encode()).hexdigest()


class SentenceVectors:
    def __init__(self, path: Path, model: str, embed: Embed):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = connect_wal(path, check_same_thread=False)
        for statement in SCHEMA:
            self.db.execute(statement)
        self.model, self.embed = model, embed

    def of(self, articles: list[Article]) -> dict[str, np.ndarray]:
        """Key → (sentences × dim) unit vectors of each article's numbered sentences (title not included)."""
        return self._vectors("vectors", {a.key: a.numbered() for a in articles})

    def titles(self, articles: list[Article]) -> dict[str, np.ndarray]:
        """Key → (1 × dim) unit vector of each article's title ((0 × 1) for an article without one)."""
        return self._vectors("titles", {a.key: [a.title] if a.title else [] for a in articles})

    def _vectors(self, table: str, wanted: dict[str, list[str]]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for batch in chunked(list(wanted), SQL_VARIABLES):
            marks = ",".join("?" * len(batch))
            rows = self.db.execute(
                f"SELECT key, digest, dim, body FROM {table} WHERE model = ? AND key IN ({marks})", [self.model, *batch]
            )
            for key, dig, dim, body in rows:
                if dig == sentences_digest(wanted[key]):
                    found[key] = np.frombuffer(body, dtype=np.float16).astype(np.float32).reshape(-1, dim)
        missing = [key for key in wanted if key not in found and wanted[key]]
        texts = [s or "." for key in missing for s in wanted[key]]
        if texts:
            vectors = np.asarray(self.embed(texts), dtype=np.float32)
            at, computed = 0, []
            for key in missing:
                n = len(wanted[key])
                found[key] = vectors[at : at + n]
                at += n
                body = found[key].astype(np.float16).tobytes()
                computed.append((key, self.model, sentences_digest(wanted[key]), vectors.shape[1], body))
            with self.db:
                self.db.executemany(f"INSERT OR REPLACE INTO {table} VALUES (?, ?, ?, ?, ?)", computed)
        return {key: found.get(key, np.zeros((0, 1), dtype=np.float32)) for key in wanted}

    def close(self) -> None:
        self.db.close()
