"""The papers that bear on a claim: BM25 from the local index, re-ranked by how close their sentences come to the
claim (tools/literature/sentence_vectors.py), with each sentence's closeness kept for choosing what to read.

``rank`` says how papers are ordered: "bm25" (the engine alone), "dense" (the closest sentence, or the title,
to the claim), "fusion" (reciprocal-rank fusion of the two, Cormack et al. 2009) or "blend" (``BLEND`` x BM25 over
the best BM25 score + the rest x the dense closeness): measured on the claims' tune split by
benchmarks/claim_retrieval.py, which reports each.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field

import numpy as np

from amg.tools.literature.index import LiteratureIndex
from amg.tools.literature.pubmed_xml import Article
from amg.tools.literature.sentence_vectors import SentenceVectors

RANKINGS = ("bm25", "dense", "fusion", "blend")
RANKING = "blend"  # on 100 tune claims with evidence, recall@3: bm25 0.82, dense 0.91, fusion 0.90, blend 0.94
BLEND = 0.3  # 0.2-0.4 gave the same recall@3 there
DEPTH = 20  # BM25 candidates re-ranked
RRF_K = 60  # reciprocal-rank fusion's constant (the published default)


@dataclass
class FoundPaper:
    article: Article
    bm25: float
    _: KW_ONLY
    bm25_rank: int
    relevance: float = 0.0  # the closest sentence's (or the title's) cosine similarity to the claim
    sentence_scores: list[float] = field(default_factory=list)  # per numbered sentence
    score: float = 0.0  # what the papers were ordered by


def find_papers(
    index: LiteratureIndex,
    claim: str,
    *,
    vectors: SentenceVectors | None,
    k: int = 3,
    rank: str = RANKING,
    depth: int = DEPTH,
) -> list[FoundPaper]:
    """The ``k`` papers best ranked for ``claim`` by ``rank`` among BM25's ``depth`` best, each with its sentences'
    similarity to the claim (none without ``vectors``, which "bm25" does not need)."""
    return ranked(candidates(index, claim, vectors=vectors, depth=depth), rank if vectors is not None else "bm25")[:k]


def candidates(index: LiteratureIndex, claim: str, *, vectors: SentenceVectors | None, depth: int = DEPTH):
    """BM25's ``depth`` best papers for ``claim``, with their sentences' closeness to it when ``vectors`` are given."""
    hits = index.search(claim, k=depth)
    articles = {a.key: a for a in index.fetch([h.key for h in hits])}
    found = [
        FoundPaper(articles[h.key], h.score, bm25_rank=n) for n, h in enumerate(h for h in hits if h.key in articles)
    ]
    if vectors is not None and found:
        closeness(found, claim, vectors)
    return found


def ranked(found: list[FoundPaper], rank: str) -> list[FoundPaper]:
    """``found`` ordered by ``rank`` (see the module docstring), best first; each paper's ``score`` set."""
    if rank not in RANKINGS:
        raise ValueError(f"ranking {rank!r} (choose {', '.join(RANKINGS)})")
    top = max((p.bm25 for p in found), default=1.0) or 1.0
    dense_rank = {id(p): n for n, p in enumerate(sorted(found, key=lambda p: -p.relevance))}
    for paper in found:
        if rank == "bm25":
            paper.score = paper.bm25
        elif rank == "dense":
            paper.score = paper.relevance
        elif rank == "blend":
            paper.score = BLEND * paper.bm25 / top + (1 - BLEND) * paper.relevance
        else:
            paper.score = 1 / (RRF_K + paper.bm25_rank + 1) + 1 / (RRF_K + dense_rank[id(paper)] + 1)
    return sorted(found, key=lambda p: -p.score)


def closeness(found: list[FoundPaper], claim: str, vectors: SentenceVectors) -> None:
    """Set each paper's sentence similarities to ``claim`` and its relevance (the best of them and its title's)."""
    articles = [p.article for p in found]
    by_key, titles = vectors.of(articles), vectors.titles(articles)
    query = np.asarray(vectors.embed([claim]), dtype=np.float32)[0]
    for paper in found:
        key = paper.article.key
        scores = by_key[key] @ query if len(by_key[key]) else np.zeros(0)
        paper.sentence_scores = [round(float(s), 4) for s in scores]
        title = float(titles[key][0] @ query) if len(titles[key]) else 0.0
        paper.relevance = round(max([title, *paper.sentence_scores]), 4)
