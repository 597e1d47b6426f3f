"""Prompt texts live beside this file as ``NAME.md``; each declares its inputs in a header.

    inputs: question, options
    quoted: question, options
    ---
    Text with {question} and {options}.

``load(NAME).format(**values)`` refuses missing or unexpected inputs, so a prompt and its
caller cannot drift apart silently. Inputs listed as ``quoted`` are data (the user's question,
retrieved evidence, graph text): ``quote`` escapes them, so no text can close or open a
``<question>`` or ``<evidence>`` block (OWASP LLM01). Escaped, not stripped: nothing is lost.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_HERE = Path(__file__).parent


def quote(text: object) -> str:
    """``text`` with & and < escaped: no tag can start inside it, so as data it cannot open or close a block.

    ``>`` stays as it is, so paths keep their arrows ("-treats(0.90)->").
    """
    return str(text).replace("&", "&amp;").replace("<", "&lt;")


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    inputs: tuple[str, ...]
    text: str
    quoted: tuple[str, ...] = ()

    def format(self, **values: object) -> str:
        missing = set(self.inputs) - set(values)
        extra = set(values) - set(self.inputs)
        if missing or extra:
            raise ValueError(f"prompt {self.name}: missing {sorted(missing)}, unexpected {sorted(extra)}")
        return self.text.format(**{k: quote(v) if k in self.quoted else str(v) for k, v in values.items()})


@cache
def load(name: str) -> PromptTemplate:
    raw = (_HERE / f"{name}.md").read_text(encoding="utf-8")
    header, sep, body = raw.partition("\n---\n")
    if not sep or not header.startswith("inputs:"):
        raise ValueError(f"prompt {name}: first line must be 'inputs: a, b' followed by a '---' line")
    lines = header.splitlines()
    declared = _names(lines[0].removeprefix("inputs:"))
    quoted = _names(lines[1].removeprefix("quoted:")) if len(lines) > 1 and lines[1].startswith("quoted:") else ()
    used = {field for _, field, _, _ in string.Formatter().parse(body) if field}
    if used != set(declared) or not set(quoted) <= set(declared):
        raise ValueError(
            f"prompt {name}: declares {sorted(declared)} (quoted {sorted(quoted)}) but uses {sorted(used)}"
        )
    return PromptTemplate(name, declared, body.strip() + "\n", quoted)


def _names(text: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in text.split(",") if x.strip())
