"""Cold and warm start times of the embedded graph and LLM servers, and what the keep-alive saves.

Cold: a fresh data directory (the graph creates its database; the LLM joins and verifies
its weights). Warm: a restart on the same data. Kept alive: the next command's wait when the
previous one left the server up (``AMG_KEEP_ALIVE``). Ready means the first successful query.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from amg.tools.kg.store.server import embedded_graph_server
from amg.tools.llm.server import embedded_llm_server
from benchmarks.report import emit


def _timed_start(make, keep_alive_s: float = 0.0) -> float:
    started = time.perf_counter()
    server = make(keep_alive_s)
    server.acquire()
    elapsed = time.perf_counter() - started
    server.release()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="0.5b", choices=["0.5b", "1.5b", "smollm2"])
    args = parser.parse_args()
    data = Path(tempfile.mkdtemp(prefix="amg-startup-"))
    graph = lambda keep: embedded_graph_server(data, keep_alive_s=keep)[0]  # noqa: E731
    llm = lambda keep: embedded_llm_server(args.model, data, keep_alive_s=keep)  # noqa: E731
    figures = {}
    for name, make in (("graph", graph), ("llm", llm)):
        figures[f"{name}_cold_s"] = round(_timed_start(make), 2)
        figures[f"{name}_warm_s"] = round(_timed_start(make, keep_alive_s=60), 2)  # left up for the next one
        figures[f"{name}_kept_alive_s"] = round(_timed_start(make), 2)  # without keep-alive: stopped on release
    emit(
        f"Local server start-up (model {args.model}, data in {data})",
        [(k, f"{v:.2f} s") for k, v in figures.items()],
        figures,
    )


if __name__ == "__main__":
    main()
