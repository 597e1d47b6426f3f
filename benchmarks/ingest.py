"""Textbook ingest: chunks embedded and stored per second (MiniLM, mpnet), and query latency.

Throughput is measured on real text chunked by the model's tokenizer. For query latency
at 10k and 100k chunks, the collection is filled to that size with stored random unit
vectors (embedding 100k real chunks would take hours on 2 cores); queries are real.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from amg.tools.vectors.embeddings import EmbeddingModelMissing, embed, model_path
from amg.tools.vectors.passages import PassageStore
from benchmarks.report import emit

QUERIES = [
    "metformin mechanism",
    "beta blocker adverse effects",
    "tuberculosis first-line treatment",
    "insulin resistance",
    "asthma exacerbation management",
]


def make_corpus(folder: Path, files: int, rng: random.Random) -> None:
    words = (
        "metformin insulin glucose hepatic kidney tubule nephron cardiac output beta receptor asthma bronchus "
        "infection antibiotic dose adverse effect patient therapy guideline trial placebo mortality"
    ).split()
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(files):
        (folder / f"chapter{i:03d}.txt").write_text(" ".join(rng.choice(words) for _ in range(3000)))


def throughput(name: str, data: Path, corpus: Path) -> float | None:
    try:
        path = model_path(name, data)
    except EmbeddingModelMissing:
        return None
    store = PassageStore(data / f"chroma-{name}", path)
    started = time.perf_counter()
    report = store.ingest([corpus])
    return round(report.chunks / (time.perf_counter() - started), 1)


def query_p50(data: Path, size: int) -> float:
    path = model_path("minilm", data)
    store = PassageStore(data / f"chroma-fill-{size}", path)
    rng = np.random.default_rng(size)
    for start in range(0, size, 5000):
        n = min(5000, size - start)
        vectors = rng.normal(size=(n, 384)).astype("float32")
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        store.collection.add(
            ids=[f"f{start + i}" for i in range(n)],
            embeddings=vectors.tolist(),
            documents=["filler"] * n,
            metadatas=[{"file": "f", "source": "f", "chunk": i, "start": 0, "end": 0, "sha256": ""} for i in range(n)],
        )
    embed(str(path), ["warm up"])
    times = []
    for query in QUERIES * 8:
        started = time.perf_counter()
        store.search(query, k=5)
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=20, help="synthetic 3,000-word chapters to ingest")
    args = parser.parse_args()
    data = Path(tempfile.mkdtemp(prefix="amg-ingest-"))
    make_corpus(data / "corpus", args.files, random.Random(3))
    figures = {
        "chunks_per_s_minilm": throughput("minilm", data, data / "corpus"),
        "chunks_per_s_mpnet": throughput("mpnet", data, data / "corpus"),
        "query_p50_ms_10k": query_p50(data, 10_000),
        "query_p50_ms_100k": query_p50(data, 100_000),
    }
    rows = [(k, "not installed (make model-mpnet)" if v is None else v) for k, v in figures.items()]
    emit(f"Passage store ({args.files} chapters, 512-token chunks, 100 overlap)", rows, figures)


if __name__ == "__main__":
    main()
