"""The embedded LLM default: llama.cpp's OpenAI-compatible server on a verified local GGUF."""

from __future__ import annotations

import importlib.util
import sys
import urllib.request
from pathlib import Path

from amg.tools.llm.weights import LOCAL_MODELS, model_file
from amg.tools.servers import LocalServer, LocalServerError


def embedded_llm_server(model_key: str, data_dir: Path, *, n_ctx: int = 4096, keep_alive_s: float = 0.0) -> LocalServer:
    """A LocalServer running llama_cpp.server on the chosen local model."""
    if model_key not in LOCAL_MODELS:
        raise LocalServerError(f"unknown local model {model_key!r}; choose one of {', '.join(LOCAL_MODELS)}")
    if importlib.util.find_spec("llama_cpp") is None:
        raise LocalServerError("llama-cpp-python is not installed; run `make install`")
    model = LOCAL_MODELS[model_key]
    gguf = model_file(model, data_dir / "models")

    def launch(ports: dict[str, int]) -> list[str]:
        # logits_all: the server's default (true) copies every prompt token's logits, halving prompt speed
        return [
            sys.executable,
            "-m",
            "amg.tools.llm.server_entry",
            "--model",
            str(gguf),
            "--model_alias",
            model.alias,
            "--host",
            "127.0.0.1",
            "--port",
            str(ports["http"]),
            "--n_threads",
            "2",
            "--n_ctx",
            str(n_ctx),
            "--logits_all",
            "false",
            "--flash_attn",
            "true",
        ]

    def probe(ports: dict[str, int]) -> bool:
        with urllib.request.urlopen(f"http://127.0.0.1:{ports['http']}/v1/models", timeout=2) as resp:
            return resp.status == 200

    return LocalServer(
        name=f"local LLM server ({model.alias})",
        home=data_dir / "llm" / model_key,
        launch=launch,
        probe=probe,
        port_names=("http",),
        ready_timeout_s=120,
        keep_alive_s=keep_alive_s,
    )
