"""Every model file AMG loads is checked against the sha256 it knows for it: the LLM weights it joins, SmolLM2 used
where its package put it, the embedders' weights. A checked file is not hashed again until it changes."""

from __future__ import annotations

import hashlib
import os

import pytest

from amg.tools.llm.weights import LOCAL_MODELS
from amg.tools.package_files import ChecksumMismatch, verified
from amg.tools.vectors.embeddings import MINILM_SHA256, MPNET_SHA256


def test_a_file_is_checked_once_and_again_when_it_changes(tmp_path, monkeypatch):
    path = tmp_path / "weights.bin"
    path.write_bytes(b"weights")
    good = hashlib.sha256(b"weights").hexdigest()
    assert verified(path, good, "reinstall") == path
    assert (tmp_path / "weights.bin.sha256-ok").read_text().startswith(good)
    hashed = []
    monkeypatch.setattr("amg.tools.package_files.sha256_of", lambda p: hashed.append(p) or good)
    verified(path, good, "reinstall")
    assert hashed == [], "an unchanged file is not hashed again"
    path.write_bytes(b"tampered")
    os.utime(path, ns=(1, 1))
    monkeypatch.undo()
    with pytest.raises(ChecksumMismatch, match="weights.bin fails its sha256 check: reinstall it \\(reinstall\\)"):
        verified(path, good, "reinstall")


def test_every_local_model_and_embedder_has_a_known_sha256():
    assert all(len(m.sha256) == 64 for m in LOCAL_MODELS.values())
    assert LOCAL_MODELS["smollm2"].in_place and not LOCAL_MODELS["1.5b"].in_place
    assert len(MINILM_SHA256) == 64 and len(MPNET_SHA256) == 64
