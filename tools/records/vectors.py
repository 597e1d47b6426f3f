"""Sentence vectors for the records room: the local all-MiniLM-L6-v2, as a function of texts to unit vectors."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np

from amg.tools.vectors.embeddings import embed, model_path

Embed = Callable[[list[str]], np.ndarray]  # texts -> unit vectors, one row each


@lru_cache(maxsize=1)
def minilm() -> Embed:
    """all-MiniLM-L6-v2 from its installed package (loaded on first use, once per process)."""
    path = str(model_path("minilm", Path(".")))

    def vectors(texts: list[str]) -> np.ndarray:
        return np.asarray(embed(path, list(texts)), dtype=np.float32) if texts else np.zeros((0, 384), np.float32)

    return vectors
