"""Ranking paths against the question (after KG-Rank): relevance, then MMR for diversity.

Curated edges all carry high confidence, so a seed's many 1.00 paths tie and confidence alone
cuts them arbitrarily. Here each path is read as a sentence ("metformin has adverse effect
diarrhea"), compared with the question and options by embedding similarity, and picked by
maximal marginal relevance: relevant, and unlike the paths already picked.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from amg.tools.choices import PATH_RANKINGS
from amg.tools.kg.pipeline_types import Said


def verbalise(steps: Sequence[Said]) -> str:
    """A path as plain words: "Metformin treats Type 2 diabetes mellitus has symptom polyuria"."""
    if not steps:
        return ""
    words = [steps[0]["source"]]
    for step in steps:
        words += [step["relation"].replace("_", " "), step["target"]]
    return " ".join(words)


def relevance(query: list[float], paths: list[list[float]]) -> list[float]:
    """Cosine similarity of each path's vector to the question's."""
    return [
        float(x) for x in _unit(np.asarray(paths, dtype=np.float32)) @ _unit(np.asarray([query], dtype=np.float32))[0]
    ]


def order(
    query: list[float], paths: list[list[float]], *, confidences: list[float], how: str = "mmr", diversity: float = 0.5
) -> list[int]:
    """Indices of ``paths`` best first: by confidence, by similarity to ``query``, or by MMR."""
    if how not in PATH_RANKINGS:
        raise ValueError(f"unknown path ranking {how!r}; choose {', '.join(PATH_RANKINGS)}")
    n = len(paths)
    if how == "confidence" or n < 2:
        return sorted(range(n), key=lambda i: -confidences[i])
    related = relevance(query, paths)
    if how == "similarity":
        return sorted(range(n), key=lambda i: (-related[i], -confidences[i]))
    vectors = _unit(np.asarray(paths, dtype=np.float32))
    similar = vectors @ vectors.T
    chosen: list[int] = []
    left = set(range(n))
    while left:

        def gain(i: int) -> float:
            redundancy = max((similar[i, j] for j in chosen), default=0.0)
            return (1 - diversity) * related[i] - diversity * redundancy

        best = max(left, key=lambda i: (gain(i), confidences[i]))
        chosen.append(best)
        left.remove(best)
    return chosen


def _unit(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)
