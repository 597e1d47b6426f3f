"""What a node runs with: the run's settings and the tools they open, handed to the node as one object.

LangGraph calls a node with its state and a ``Runtime`` whose ``context`` is the run's ``Context`` (or none, when a
caller passed none: the environment's). ``@with_run`` turns that into a ``Run`` once, before the node's body, so no
node opens with the same two lines of look-ups.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from langgraph.runtime import Runtime

from amg.graphs.context import Context, run_context
from amg.graphs.resources import Resources, resources_for

S = TypeVar("S")
U = TypeVar("U")
S_in = TypeVar("S_in", contravariant=True)
U_out = TypeVar("U_out", covariant=True)


class Node(Protocol[S_in, U_out]):
    """A node as LangGraph calls it: the state, and the runtime by name."""

    def __call__(self, state: S_in, runtime: Runtime[Context]) -> U_out: ...


@dataclass(frozen=True)
class Run:
    """The run's settings and the process's shared tools for them (graphs/resources.py)."""

    context: Context
    resources: Resources


def run_of(runtime: Runtime[Context] | Any) -> Run:
    context = run_context(runtime)
    return Run(context, resources_for(context))


def with_run(fn: Callable[[S, Run], U]) -> Node[S, U]:
    """``fn(state, run)`` as LangGraph calls a node or an edge: ``(state, runtime)``. The wrapper keeps its own
    signature (LangGraph reads it to pass the runtime), only the name and docstring of ``fn``."""

    def node(state: S, runtime: Runtime[Context]) -> U:
        return fn(state, run_of(runtime))

    node.__name__, node.__qualname__, node.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    return node
