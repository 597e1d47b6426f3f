"""The shape shared by the build and refresh graphs: pick items, work on each in parallel, summarise."""

from __future__ import annotations

import json
from collections.abc import Callable

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send
from langgraph.typing import StateT

from amg.graphs.context import Context


def batch_graph(state: type[StateT], pick: Callable, *, work: Callable, summarize: Callable, items_key: str, name: str):
    """START -> pick -> work (one Send per item in ``state[items_key]``) -> summarize -> END."""

    def fan_out(current: dict):
        return [Send(work.__name__, {"entity": item}) for item in current.get(items_key, [])] or summarize.__name__

    builder: StateGraph[StateT, Context, StateT, StateT] = StateGraph(state, context_schema=Context)
    builder.add_node(pick.__name__, pick)
    builder.add_node(work.__name__, work)
    builder.add_node(summarize.__name__, summarize)
    builder.add_edge(START, pick.__name__)
    builder.add_conditional_edges(pick.__name__, fan_out, [work.__name__, summarize.__name__])
    builder.add_edge(work.__name__, summarize.__name__)
    builder.add_edge(summarize.__name__, END)
    return builder.compile(name=name)


def write_run_summary(context: Context, kind: str, summary: dict) -> None:
    """Keep each run's summary as JSON under the data dir's runs/ folder."""
    runs = context.data_path / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    (runs / f"{kind}-{summary['finished_at'].replace(':', '')}.json").write_text(json.dumps(summary, indent=2))
