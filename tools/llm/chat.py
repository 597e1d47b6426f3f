"""Chat model factory: always ``langchain_openai.ChatOpenAI``.

With an endpoint configured it talks to that endpoint (OpenAI, vLLM, Ollama, ...);
without one it starts (or reuses) the embedded llama.cpp server on a local model.
"""

from __future__ import annotations

from pathlib import Path

from langchain_openai import ChatOpenAI

from tools.llm.server import embedded_llm_server
from tools.llm.weights import LOCAL_MODELS
from tools.servers import LocalServer


def chat_model(
    *,
    base_url: str,
    api_key: str,
    model: str,
    local_model: str,
    data_dir: Path,
    timeout_s: float = 300.0,
    max_tokens: int = 600,
) -> tuple[ChatOpenAI, LocalServer | None]:
    """A deterministic chat model, and the local server behind it (None for a remote endpoint)."""
    server = None
    if not base_url:
        server = embedded_llm_server(local_model, data_dir)
        port = server.acquire()["http"]
        base_url, api_key, model = f"http://127.0.0.1:{port}/v1", "local", LOCAL_MODELS[local_model].alias
    llm = ChatOpenAI(
        base_url=base_url,
        api_key=api_key or "not-needed",
        model=model,
        temperature=0,
        max_tokens=max_tokens,
        timeout=timeout_s,
        max_retries=2,
    )
    return llm, server
