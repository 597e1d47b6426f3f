"""Textbook/corpus passages in a persistent Chroma collection, embedded locally.

Embeddings are computed here and handed to Chroma (its default embedder would try to
download a model). Files are chunked by the embedding model's own tokenizer.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import TypedDict

import chromadb
from chromadb.config import Settings

from amg.tools.batching import chunked
from amg.tools.text_files import read_user_text
from amg.tools.vectors.embeddings import embed, load_embedder

TEXT_SUFFIXES = (".txt", ".md")
MAX_BATCH = 10_000


class ChunkMeta(TypedDict):
    """What the vector store keeps beside a chunk: its file (and that file's sha256), its source's name, its number
    and where it starts and ends in the file's text."""

    file: str
    source: str
    chunk: int
    start: int
    end: int
    sha256: str


@dataclass
class Passage:
    text: str
    source: str
    _: KW_ONLY
    chunk: int
    start: int
    end: int
    score: float
    file: str = ""  # the ingested file's absolute path (empty for passages ingested before it was kept)


@dataclass
class IngestReport:
    files_ingested: list[str] = field(default_factory=list)
    files_skipped: list[str] = field(default_factory=list)  # unchanged since the last ingest
    problems: list[str] = field(default_factory=list)  # one readable line per bad input
    chunks: int = 0


def open_collection(path: Path, name: str = "passages"):
    client = chromadb.PersistentClient(path=str(path), settings=Settings(anonymized_telemetry=False))
    return client.get_or_create_collection(name, embedding_function=None, metadata={"hnsw:space": "cosine"})


def chunk_text(text: str, tokenizer, *, size: int = 512, overlap: int = 100) -> list[tuple[int, int]]:
    """(start, end) character spans of windows of ``size`` tokens overlapping by ``overlap``."""
    if overlap >= size:
        raise ValueError("chunk overlap must be smaller than the chunk size")
    offsets = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
    if not offsets:
        return []
    spans, step = [], size - overlap
    for first in range(0, len(offsets), step):
        window = offsets[first : first + size]
        spans.append((window[0][0], window[-1][1]))
        if first + size >= len(offsets):
            break
    return spans


def read_documents(path: Path) -> tuple[list[tuple[str, str]], list[str]]:
    """(source id, text) pairs from a .txt/.md file or a JSONL file with a ``text`` field, and problems."""
    text = read_user_text(path, "only .txt, .md and .jsonl are ingested")
    if path.suffix != ".jsonl":
        return [(str(path), text)], []
    documents, bad = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if isinstance(record, dict) and isinstance(record.get("text"), str):
            documents.append((f"{path}#{record.get('id', number)}", record["text"]))
        else:
            bad.append(number)
    problems = [f"{path}: skipped {len(bad)} line(s) without a JSON 'text' field: {bad[:5]}"] if bad else []
    return documents, problems


class PassageStore:
    def __init__(self, chroma_dir: Path, model_path: Path, *, size: int = 512, overlap: int = 100):
        self.collection = open_collection(chroma_dir)
        self.model_path, self.size, self.overlap = str(model_path), size, overlap

    def ingest(self, paths: list[Path], progress: Callable[[int], None] = lambda n: None) -> IngestReport:
        report = IngestReport()
        pending: list[tuple[str, str, ChunkMeta]] = []
        for path in _expand(paths, report):
            try:
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                file = str(path.resolve())  # where a citation's link points, from any working directory
                if self._already_ingested(file, digest):
                    report.files_skipped.append(str(path))
                    continue
                self.collection.delete(where={"file": file})
                documents, problems = read_documents(path)
                report.problems.extend(problems)
                for source, text in documents:
                    pending.extend(self._chunks(file, source, text=text, digest=digest))
                report.files_ingested.append(str(path))
            except (OSError, ValueError) as exc:
                report.problems.append(f"{path}: {exc}")
            while len(pending) >= MAX_BATCH:
                self._add(pending[:MAX_BATCH], progress)
                report.chunks += MAX_BATCH
                pending = pending[MAX_BATCH:]
        if pending:
            self._add(pending, progress)
            report.chunks += len(pending)
        return report

    def _already_ingested(self, file: str, digest: str) -> bool:
        found = self.collection.get(where={"file": file}, limit=1, include=["metadatas"])
        return bool(found["ids"]) and found["metadatas"][0].get("sha256") == digest

    def _chunks(self, file: str, source: str, *, text: str, digest: str) -> list[tuple[str, str, ChunkMeta]]:
        tokenizer = load_embedder(self.model_path).tokenizer
        out = []
        for number, (start, end) in enumerate(chunk_text(text, tokenizer, size=self.size, overlap=self.overlap)):
            meta = ChunkMeta(file=file, source=source, chunk=number, start=start, end=end, sha256=digest)
            out.append((f"{source}::{number}", text[start:end], meta))
        return out

    def _add(self, batch: list[tuple[str, str, ChunkMeta]], progress: Callable[[int], None]) -> None:
        for part in chunked(batch, 1000):
            ids, texts, metas = (list(column) for column in zip(*part))
            self.collection.upsert(
                ids=ids,
                documents=texts,
                metadatas=metas,
                embeddings=embed(self.model_path, texts),
            )
            progress(len(ids))

    def search(self, query: str, k: int = 5) -> list[Passage]:
        query = " ".join((query or "").split())[:2000]
        if not query:
            raise ValueError("search query is empty")
        if self.collection.count() == 0:
            return []
        found = self.collection.query(query_embeddings=embed(self.model_path, [query]), n_results=k)
        return [
            Passage(
                doc,
                meta["source"],
                chunk=meta["chunk"],
                start=meta["start"],
                end=meta["end"],
                score=round(1.0 - dist, 4),
                file=meta["file"] if Path(meta.get("file", "")).is_absolute() else "",
            )
            for doc, meta, dist in zip(found["documents"][0], found["metadatas"][0], found["distances"][0])
        ]


def _expand(paths: list[Path], report: IngestReport) -> Iterator[Path]:
    for path in paths:
        if not path.exists():
            report.problems.append(f"{path}: no such file or folder")
        elif path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.suffix in (*TEXT_SUFFIXES, ".jsonl") and p.is_file())
        else:
            yield path
