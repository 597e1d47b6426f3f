"""The local index's search engine: tantivy (BM25 with block-max WAND) over title, abstract and MeSH terms.

It holds no record text for display (the record store does); it only finds keys (a PMID, or another scheme's
paper id: its field keeps the name "pmid" it had when it held only PMIDs), ranked, with a
publication-year filter as Entrez's ``mindate``/``maxdate``. Queries are built from plain words, never
passed through tantivy's query language, so no user text can become an operator or a syntax error.
"""

from __future__ import annotations

import re
from pathlib import Path

import tantivy

from amg.tools.literature.pubmed_xml import Article

FIELDS = ("title", "abstract", "mesh")
BOOSTS = {"title": 2.0, "mesh": 1.5, "abstract": 1.0}
WRITER_HEAP, WRITER_THREADS = 512 << 20, 2  # two indexing threads index several times faster than one


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("pmid", stored=True, tokenizer_name="raw", index_option="basic")
    for name in FIELDS:
        builder.add_text_field(name, tokenizer_name="en_stem", index_option="freq")
    builder.add_integer_field("year", indexed=True, fast=True)
    return builder.build()


class FullTextIndex:
    def __init__(self, path: Path):
        path.mkdir(parents=True, exist_ok=True)
        self.schema = _schema()
        self.index = tantivy.Index(self.schema, path=str(path), reuse=True)
        self._writer: tantivy.IndexWriter | None = None

    # writing (one writer per index; the ingest holds a file lock around it)
    def replace(self, articles: list[Article], present: set[str] | None = None) -> None:
        """Add ``articles``, first deleting the keys of ``present`` (None: every key, when unsure)."""
        writer = self._writer_()
        for article in articles:
            if present is None or article.key in present:
                writer.delete_documents_by_term("pmid", article.key)
            writer.add_document(
                tantivy.Document(
                    pmid=article.key,
                    title=article.title,
                    abstract=article.abstract,
                    mesh=" ; ".join(article.mesh_terms),
                    year=article.year or 0,
                )
            )

    def delete(self, pmids: list[str]) -> None:
        writer = self._writer_()
        for pmid in pmids:
            writer.delete_documents_by_term("pmid", pmid)

    def commit(self) -> None:
        if self._writer is not None:
            self._writer.commit()

    def close_writer(self) -> None:
        if self._writer is not None:
            self._writer.wait_merging_threads()
            self._writer = None

    def _writer_(self) -> tantivy.IndexWriter:
        if self._writer is None:
            self._writer = self.index.writer(WRITER_HEAP, WRITER_THREADS)
        return self._writer

    # reading
    def search(
        self, words: list[str], k: int, *, min_year: int | None = None, max_year: int | None = None
    ) -> list[tuple[str, float]]:
        """(key, BM25 score), best first, for documents with any of ``words``."""
        if not words:
            return []
        # plain lower-case alphanumeric words: no operator, field, phrase or other syntax can appear
        text = " ".join(dict.fromkeys(part for word in words for part in re.split(r"[^a-z0-9]+", word) if part))
        query = self.index.parse_query(text, list(FIELDS), field_boosts=BOOSTS)
        if min_year or max_year:
            years = tantivy.Query.range_query(
                self.schema, "year", tantivy.FieldType.Integer, min_year or 0, max_year or 9999
            )
            query = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, query), (tantivy.Occur.Must, tantivy.Query.const_score_query(years, 0.0))]
            )
        self.index.reload()
        searcher = self.index.searcher()
        return [(searcher.doc(address)["pmid"][0], score) for score, address in searcher.search(query, k).hits]

    def count(self) -> int:
        self.index.reload()
        return self.index.searcher().num_docs
