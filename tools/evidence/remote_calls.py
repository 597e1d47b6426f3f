"""Politeness and resilience for remote sources: a shared rate limiter and one retry policy.

Every remote call goes through ``call_remote``: it waits its turn on the limiter and
retries transient faults (network errors, HTTP 429 and 5xx; not a host the resolver says does
not exist) with exponential backoff and jitter, honouring Retry-After. Whatever still fails becomes
``SourceUnavailable``.
"""

from __future__ import annotations

import random
import socket
import threading
import time
import urllib.error
from collections.abc import Callable
from typing import TypeVar

import requests
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

T = TypeVar("T")
MAX_RETRY_AFTER_S = 30.0


class SourceUnavailable(RuntimeError):
    """A remote evidence source could not be reached after retries."""


class RateLimiter:
    """At most ``per_second`` calls across all threads (async callers run us in threads)."""

    def __init__(self, per_second: float):
        self.interval = 1.0 / per_second
        self._lock = threading.Lock()
        self._next = 0.0

    def wait(self) -> None:
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            time.sleep(start - now)


_LIMITERS: dict[tuple[str, float], RateLimiter] = {}
_LIMITERS_LOCK = threading.Lock()


def shared_limiter(name: str, per_second: float) -> RateLimiter:
    """One limiter per (source, rate) in the process, so all clients share the budget."""
    with _LIMITERS_LOCK:
        return _LIMITERS.setdefault((name, per_second), RateLimiter(per_second))


def _status(exc: BaseException) -> int | None:
    if isinstance(exc, urllib.error.HTTPError):
        return exc.code
    response = getattr(exc, "response", None)
    return getattr(response, "status_code", None)


def is_transient(exc: BaseException) -> bool:
    status = _status(exc)
    if status is not None:
        return status == 429 or status >= 500
    return isinstance(
        exc,
        (
            urllib.error.URLError,
            socket.timeout,
            TimeoutError,
            ConnectionError,
            requests.exceptions.ConnectionError,
            requests.exceptions.Timeout,
        ),
    )


def unknown_host(exc: BaseException) -> bool:
    """Whether the resolver said the host does not exist (EAI_NONAME, "Name or service not known"):
    a definite answer, unlike "Temporary failure in name resolution", so asking again seconds later only
    delays the answer. The cause may sit several wrappers deep
    (urllib's URLError.reason; requests' ConnectionError -> MaxRetryError.reason -> NameResolutionError)."""
    seen: set[int] = set()
    todo: list[object] = [exc]
    while todo:
        item = todo.pop()
        if not isinstance(item, BaseException) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, socket.gaierror) and item.errno == socket.EAI_NONAME:
            return True
        todo += [getattr(item, "reason", None), item.__cause__, item.__context__, *item.args]
    return False


def _retry_after(exc: BaseException) -> float | None:
    headers = getattr(exc, "headers", None) or getattr(getattr(exc, "response", None), "headers", None)
    value = headers.get("Retry-After") if headers else None
    try:
        return min(float(value), MAX_RETRY_AFTER_S) if value is not None else None
    except ValueError:
        return None


def _wait(base_s: float) -> Callable[[RetryCallState], float]:
    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        hinted = _retry_after(exc) if exc else None
        if hinted is not None:
            return hinted
        return base_s * 2 ** (state.attempt_number - 1) * (0.5 + random.random())

    return wait


def call_remote(
    source: str,
    fn: Callable[[], T],
    *,
    limiter: RateLimiter,
    attempts: int = 3,
    base_wait_s: float = 0.5,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run ``fn`` politely; raise SourceUnavailable with a one-line reason if it keeps failing."""

    def limited() -> T:
        limiter.wait()
        return fn()

    retrying = Retrying(
        retry=retry_if_exception(lambda exc: is_transient(exc) and not unknown_host(exc)),
        stop=stop_after_attempt(attempts),
        wait=_wait(base_wait_s),
        sleep=sleep,
        reraise=True,
    )
    try:
        return retrying(limited)
    except Exception as exc:
        if is_transient(exc):
            detail = " ".join(str(exc).split())[:100]
            raise SourceUnavailable(f"{source} unreachable ({type(exc).__name__}: {detail})") from exc
        raise
