"""The code's shape, read from its source with ``ast``:

- no function in agents/ or tools/ is annotated to return a bare ``dict`` (alone, or inside a list, a tuple or an
  optional): a record is a TypedDict or a dataclass that names its fields (a real key -> value map says its types,
  ``dict[str, list[str]]``);
- a function or method of agents/, graphs/, tools/ or cli/ with four or more parameters (``self`` and ``cls`` not
  counted) takes at most its first two by position, the rest by keyword, unless a library dictates its signature
  (``EXEMPT``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RECORD_FOLDERS = ("agents", "tools")
KEYWORD_FOLDERS = ("agents", "graphs", "tools", "cli")
MANY = 4  # parameters from which all but the first ones are taken by keyword
POSITIONAL = 2  # how many of them may be taken by position
# function names whose signature a library dictates ("__exit__": the context-manager protocol)
EXEMPT = frozenset({"__exit__"})


def _functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def bare_dict_returns(source: str) -> list[str]:
    """The functions of ``source`` whose return annotation holds ``dict`` (or ``Dict``) without its types."""
    found = []
    for function in _functions(ast.parse(source)):
        if function.returns is None:
            continue
        subscripted = {id(n.value) for n in ast.walk(function.returns) if isinstance(n, ast.Subscript)}
        for node in ast.walk(function.returns):
            named = isinstance(node, ast.Name) and node.id in ("dict", "Dict") and id(node) not in subscripted
            quoted = isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip() == "dict"
            if named or quoted:
                found.append(f"{function.name} (line {function.lineno}) -> {ast.unparse(function.returns)}")
                break
    return found


def too_positional(source: str, exempt: frozenset[str] = EXEMPT) -> list[str]:
    """The functions of ``source`` with ``MANY`` or more parameters that take more than ``POSITIONAL`` by position."""
    found = []
    for function in _functions(ast.parse(source)):
        if function.name in exempt:
            continue
        args = function.args
        positional = [*args.posonlyargs, *args.args]
        if positional and positional[0].arg in ("self", "cls"):
            positional = positional[1:]
        if len(positional) + len(args.kwonlyargs) >= MANY and len(positional) > POSITIONAL:
            names = ", ".join(a.arg for a in positional)
            found.append(f"{function.name} (line {function.lineno}) takes {names} by position")
    return found


def _sources(folders: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")


def test_no_function_in_agents_or_tools_returns_a_bare_dict():
    found = [f"{name}: {problem}" for name, text in _sources(RECORD_FOLDERS) for problem in bare_dict_returns(text)]
    assert found == [], "name the record's fields (a TypedDict or a dataclass):\n" + "\n".join(found)


def test_functions_of_four_parameters_or_more_take_the_rest_by_keyword():
    found = [f"{name}: {problem}" for name, text in _sources(KEYWORD_FOLDERS) for problem in too_positional(text)]
    assert found == [], f"make the parameters after the first {POSITIONAL} keyword-only:\n" + "\n".join(found)


def test_the_checks_find_what_they_look_for():
    bad = """
def plain(rows) -> dict: ...
def listed(rows) -> list[dict]: ...
def optional(rows) -> "dict": ...
def paired(rows) -> tuple[dict[str, int], dict]: ...
def typed(rows) -> dict[str, int]: ...
def nothing(rows): ...

def wide(a, b, c, d): ...
class Store:
    def read(self, keys, floor, per_node, hub=None): ...
    def narrow(self, keys, floor, *, per_node, hub=None): ...
def three(a, b, c): ...
def keyworded(a, *, b, c, d, e): ...
def __exit__(self, kind, error, trace, extra): ...
"""
    assert [line.split(" ")[0] for line in bare_dict_returns(bad)] == ["plain", "listed", "optional", "paired"]
    assert [line.split(" ")[0] for line in too_positional(bad)] == ["wide", "read"]
