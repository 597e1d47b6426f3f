"""Chat model factory: always ``langchain_openai.ChatOpenAI``.

With an endpoint configured it talks to that endpoint (OpenAI, vLLM, Ollama, ...);
without one it starts (or reuses) the embedded llama.cpp server on a local model.
Every call has one time budget, retries included; an endpoint that fails, stalls or sends
a reply that cannot be read raises ``ModelUnavailable`` naming the endpoint. A rejected
request (HTTP 400, e.g. a prompt over the context) stays ``openai.BadRequestError``: the
agents answer degraded on it.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from pathlib import Path
from typing import Any

import openai
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from amg.tools.llm.server import embedded_llm_server
from amg.tools.llm.weights import LOCAL_MODELS
from amg.tools.servers import LocalServer

ATTEMPTS = 3
_RETRYABLE = (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError)
_UNREADABLE = (ValueError, TypeError, IndexError, KeyError, AttributeError)  # what a malformed reply raises


_TURNS: dict[str | None, threading.Lock] = {}  # endpoint -> its turn, for servers that answer one request at a time


class ModelUnavailable(RuntimeError):
    """The model endpoint failed, stalled or replied unreadably; the message names it."""


class EndpointChat(ChatOpenAI):
    """ChatOpenAI with a bounded wait per call and endpoint faults as one clear error. With ``one_at_a_time``
    (the embedded server, which answers one request at a time) parallel branches take turns here, so the
    wait for a turn does not count against a call's ``budget_s``."""

    budget_s: float = 60.0
    one_at_a_time: bool = False

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        if not self.one_at_a_time:
            return self._bounded(messages, stop, run_manager, **kwargs)
        with _TURNS.setdefault(self.openai_api_base, threading.Lock()):
            return self._bounded(messages, stop, run_manager, **kwargs)

    def _bounded(self, messages, stop=None, run_manager=None, **kwargs):
        deadline, attempt = time.monotonic() + self.budget_s, 0
        while True:
            attempt += 1
            remaining = max(deadline - time.monotonic(), 0.1)
            try:
                result = super()._generate(messages, stop, run_manager, timeout=remaining, **kwargs)
                if not result.generations:
                    raise self._unavailable("sent a reply with no choices")
                return result
            except openai.BadRequestError:
                raise
            except openai.APITimeoutError:
                raise self._unavailable(f"did not answer within {self.budget_s:g} s (AMG_LLM_TIMEOUT)") from None
            except _RETRYABLE as exc:
                pause = _pause(attempt, exc)
                if attempt == ATTEMPTS or time.monotonic() + pause >= deadline:
                    raise self._unavailable(f"{_describe(exc)} ({attempt} attempt{'s' * (attempt > 1)})") from None
                time.sleep(pause)
            except openai.APIStatusError as exc:
                raise self._unavailable(_describe(exc)) from None
            except json.JSONDecodeError:
                raise self._unavailable("sent a reply that is not JSON") from None
            except _UNREADABLE as exc:
                raise self._unavailable(f"sent a reply that is not a chat completion ({str(exc)[:120]})") from None

    def _unavailable(self, what: str) -> ModelUnavailable:
        return ModelUnavailable(f"model endpoint {self.openai_api_base} {what}")


def _describe(exc: openai.APIError) -> str:
    if isinstance(exc, openai.APIStatusError):
        detail = re.sub(r"^Error code: \d+ - ", "", " ".join(str(exc.message).split()))
        return f"answered HTTP {exc.status_code}: {detail[:200]}"
    return f"cannot be reached ({exc.message})"


def _pause(attempt: int, exc: Exception) -> float:
    """Exponential backoff with jitter; a Retry-After header is honoured up to 10 s."""
    response: Any = getattr(exc, "response", None)  # an HTTP error's (httpx.Response), None for a lost connection
    try:
        return min(float(response.headers.get("retry-after")), 10.0)
    except (AttributeError, TypeError, ValueError):
        return 0.5 * 2 ** (attempt - 1) * (0.5 + random.random())


def chat_model(
    *,
    base_url: str,
    api_key: str,
    model: str,
    local_model: str,
    data_dir: Path,
    timeout_s: float = 60.0,
    max_tokens: int = 600,
    keep_alive_s: float = 0.0,
) -> tuple[ChatOpenAI, LocalServer | None]:
    """A deterministic chat model, and the local server behind it (None for a remote endpoint)."""
    server = None
    if not base_url:
        server = embedded_llm_server(local_model, data_dir, keep_alive_s=keep_alive_s)
        port = server.acquire()["http"]
        base_url, api_key, model = f"http://127.0.0.1:{port}/v1", "local", LOCAL_MODELS[local_model].alias
    llm = EndpointChat(
        base_url=base_url,
        api_key=SecretStr(api_key or "not-needed"),
        model=model,
        temperature=0,
        max_completion_tokens=max_tokens,  # the alias of the max_tokens field, which is what mypy reads
        timeout=timeout_s,
        max_retries=0,
        budget_s=timeout_s,
        one_at_a_time=server is not None,
    )
    return llm, server
