"""Every module of the package imports on the supported Python (a module no test reaches still has to load)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import pkgutil

import pytest

import amg.agents
import amg.cli
import amg.evaluation
import amg.graphs
import amg.prompts
import amg.testing
import amg.tools

MODULES = sorted(
    info.name
    for package in (amg.agents, amg.cli, amg.evaluation, amg.graphs, amg.prompts, amg.testing, amg.tools)
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
)


@pytest.mark.parametrize("name", MODULES)
def test_module_imports(name):
    importlib.import_module(name)


# cli -> evaluation -> graphs -> agents -> tools -> prompts: a module imports its own layer and the ones below
LAYERS = {"prompts": 0, "tools": 1, "agents": 2, "graphs": 3, "evaluation": 4, "cli": 5}


def _imported(name: str) -> set[str]:
    """The amg modules ``name``'s source imports (at any depth of the file)."""
    spec = importlib.util.find_spec(name)
    tree = ast.parse(open(spec.origin, encoding="utf-8").read())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("amg."):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("amg.")}
    return found


def test_dependencies_point_one_way():
    upward = [
        f"{name} imports {other}"
        for name in MODULES
        if name.split(".")[1] in LAYERS
        for other in _imported(name)
        if other.split(".")[1] in LAYERS and LAYERS[other.split(".")[1]] > LAYERS[name.split(".")[1]]
    ]
    assert upward == []


def test_the_rooms_of_tools_do_not_lean_on_each_other():
    rooms = {}  # room -> rooms it imports (tools.kg.store and tools.kg.traversal are both the room tools.kg)
    for name in MODULES:
        if name.startswith("amg.tools."):
            room = ".".join(name.split(".")[:3])
            rooms.setdefault(room, set()).update(
                ".".join(o.split(".")[:3]) for o in _imported(name) if o.startswith("amg.tools.")
            )
    leaning = sorted(f"{a} <-> {b}" for a in rooms for b in rooms[a] if a < b and a in rooms.get(b, set()))
    assert leaning == []


def test_no_module_imports_itself_through_others():
    """No import circle among the package's modules, counting imports inside functions too (the cli's formatting
    once imported the command that used it)."""
    graph = {name: {o for o in _imported(name) if o in MODULES} for name in MODULES}
    circles, state = [], {}

    def visit(name: str, path: list[str]) -> None:
        state[name] = "open"
        for other in sorted(graph[name]):
            if state.get(other) == "open":
                circles.append(" -> ".join(path[path.index(other) :] + [name, other]) if other in path else other)
            elif other not in state:
                visit(other, [*path, name])
        state[name] = "done"

    for name in MODULES:
        if name not in state:
            visit(name, [])
    assert circles == []
