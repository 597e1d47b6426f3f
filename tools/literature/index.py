"""A local PubMed: the record store (what is held) and the full-text engine (how it is found), kept in step.

Layout under ``AMG_DATA_DIR/pubmed/``: ``records.sqlite`` and ``fulltext/``. A batch is written to the
engine and committed first, then to the record store, so a kill -9 between the two leaves records the
engine finds but the store lacks (dropped at search, re-written on the next ingest), never records the
store holds and the engine cannot find.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from amg.tools.literature.fulltext import FullTextIndex
from amg.tools.literature.pubmed_xml import Article
from amg.tools.literature.query_words import query_words
from amg.tools.literature.record_store import RecordStats, RecordStore


@dataclass(frozen=True)
class Hit:
    pmid: str  # the record's key: a PMID, or the paper id of a record without one ("s2:4983")
    score: float

    @property
    def key(self) -> str:
        return self.pmid


def index_path(data_dir: Path) -> Path:
    return data_dir / "pubmed"


def index_exists(data_dir: Path) -> bool:
    return (index_path(data_dir) / "records.sqlite").exists()


class IndexStats(RecordStats):
    bytes: int  # the index's files on disk


class LiteratureIndex:
    def __init__(self, path: Path):
        self.path = path
        self.records = RecordStore(path / "records.sqlite")
        self.fulltext = FullTextIndex(path / "fulltext")

    def write(
        self,
        articles: list[Article],
        deleted: list[str],
        *,
        held: set[str] | None = None,
        bodies: dict[str, bytes] | None = None,
        changes: dict[str, str] | None = None,
    ) -> None:
        """Replace ``articles`` and remove ``deleted``: durable when this returns. ``held``: the keys of
        ``articles`` already held (the engine drops those first); None when unknown (every one is dropped).
        ``changes``: what the graph must hear of (RecordStore.write), journalled with the records."""
        if articles:
            self.fulltext.replace(articles, held)
        if deleted:
            self.fulltext.delete(deleted)
        self.fulltext.commit()
        self.records.write(articles, deleted, bodies=bodies, changes=changes)

    def search(self, query: str, k: int = 10, *, min_year: int | None = None, max_year: int | None = None) -> list[Hit]:
        """The ``k`` best records for ``query``'s words (any of them; BM25), within the years given."""
        hits = self.fulltext.search(query_words(query), k + 5, min_year=min_year, max_year=max_year)
        held = self.records.known([pmid for pmid, _ in hits])
        return [Hit(pmid, score) for pmid, score in hits if pmid in held][:k]

    def fetch(self, keys: list[str]) -> list[Article]:
        """The stored records for ``keys`` (PMIDs or other paper ids), in that order; unknown keys are absent."""
        found = self.records.get(keys)
        return [found[p] for p in dict.fromkeys(str(p) for p in keys) if p in found]

    def in_step(self) -> bool:
        """Whether the engine holds exactly the stored records (not so after a kill between the two commits)."""
        return self.fulltext.count() == self.records.stats()["records"]

    def stats(self) -> IndexStats:
        size = sum(f.stat().st_size for f in self.path.rglob("*") if f.is_file())
        return {**self.records.stats(), "bytes": size}

    def close(self) -> None:
        self.fulltext.close_writer()
        self.records.close()
