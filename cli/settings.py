"""Every setting as a markdown page and as ``.env.example``, rendered from the ``Context`` dataclass so neither can
drift from the code.

``python -m amg.cli.settings > docs/configuration.md`` regenerates the page and ``python -m amg.cli.settings --env >
.env.example`` the example file; tests/unit/test_docs.py checks both.
"""

from __future__ import annotations

import sys
import textwrap
from dataclasses import fields

from amg.graphs.context import Context

_KINDS = {"int": "a whole number", "float": "a number", "bool": "`true` / `false`", "str": "text"}


def settings_markdown() -> str:
    """The configuration page: a title, one sentence on where it comes from, and a table of every setting."""
    lines = [
        "# Configuration",
        "",
        "Generated from the `Context` dataclass ([graphs/context.py](../graphs/context.py)) by",
        "`python -m amg.cli.settings > docs/configuration.md`, so edit the dataclass, not this page;",
        "`.env.example` lists the same variables (copy it to `.env`, or export them: real environment variables win).",
        "",
        "| variable | default | allowed values | what it does |",
        "|---|---|---|---|",
    ]
    for setting in fields(Context):
        meta = setting.metadata
        default = f"`{meta['fallback']}`" if meta["fallback"] else "(empty)"
        lines.append(f"| `{meta['env']}` | {default} | {_allowed(setting)} | {_cell(meta['description'])} |")
    return "\n".join(lines) + "\n"


_ENV_HEADER = [
    "# AMG configuration. Copy to .env; real environment variables win over this file.",
    "# Empty values mean the embedded default (local llama.cpp model, local ArcadeDB Bolt server).",
    "# Generated from graphs/context.py by `python -m amg.cli.settings --env > .env.example`.",
]


def env_example() -> str:
    """``.env.example``: each setting's description as a comment, then the variable at its default."""
    lines = list(_ENV_HEADER)
    for setting in fields(Context):
        meta = setting.metadata
        lines += ["", *(f"# {line}" for line in textwrap.wrap(" ".join(meta["description"].split()), 116))]
        lines.append(f"{meta['env']}={meta['fallback']}")
    return "\n".join(lines) + "\n"


def _allowed(setting) -> str:
    choices = ", ".join(f"`{choice}`" for choice in setting.metadata["choices"])
    kind = str(setting.type)
    if kind.startswith("tuple"):
        return f"any of {choices}, comma-separated" if choices else "a comma-separated list"
    return choices or _KINDS.get(kind, kind)


def _cell(text: str) -> str:
    """Text that stays in its table cell: pipes escaped, line breaks joined."""
    return " ".join(text.split()).replace("|", "\\|")


if __name__ == "__main__":
    print(env_example() if "--env" in sys.argv[1:] else settings_markdown(), end="")
