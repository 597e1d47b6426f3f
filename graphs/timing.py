"""Node wall time, recorded in the state's ``timings_ms``."""

from __future__ import annotations

import time
from functools import wraps

from langgraph.runtime import Runtime

from amg.graphs.context import Context


def timed(name: str):
    """Record the node's wall time in ``timings_ms``."""

    def wrap(fn):
        @wraps(fn)
        def node(state, runtime: Runtime[Context]):
            start = time.perf_counter()
            update = fn(state, runtime) or {}
            update["timings_ms"] = {name: (time.perf_counter() - start) * 1000}
            return update

        return node

    return wrap
