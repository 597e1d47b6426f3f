"""Cold and warm start times of the embedded graph and LLM servers.

Cold: a fresh data directory (the graph creates its database; the LLM joins and verifies
its weights). Warm: a restart on the same data. Ready means the first successful query.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from benchmarks.report import emit
from tools.kg.server import embedded_graph_server
from tools.llm.server import embedded_llm_server


def _timed_start(make) -> float:
    started = time.perf_counter()
    server = make()
    server.acquire()
    elapsed = time.perf_counter() - started
    server.release()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="0.5b", choices=["0.5b", "1.5b", "smollm2"])
    args = parser.parse_args()
    data = Path(tempfile.mkdtemp(prefix="amg-startup-"))
    graph = lambda: embedded_graph_server(data)[0]  # noqa: E731
    llm = lambda: embedded_llm_server(args.model, data)  # noqa: E731
    figures = {
        "graph_cold_s": round(_timed_start(graph), 2),
        "graph_warm_s": round(_timed_start(graph), 2),
        "llm_cold_s": round(_timed_start(llm), 2),
        "llm_warm_s": round(_timed_start(llm), 2),
    }
    emit(f"Local server start-up (model {args.model}, data in {data})",
         [(k, f"{v:.2f} s") for k, v in figures.items()], figures)  # fmt: skip


if __name__ == "__main__":
    main()
