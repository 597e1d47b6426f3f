"""Prompt texts live beside this file as ``NAME.md``; each declares its inputs in a header.

    inputs: question, options
    ---
    Text with {question} and {options}.

``load(NAME).format(**values)`` refuses missing or unexpected inputs, so a prompt and its
caller cannot drift apart silently.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_HERE = Path(__file__).parent


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    inputs: tuple[str, ...]
    text: str

    def format(self, **values: object) -> str:
        missing = set(self.inputs) - set(values)
        extra = set(values) - set(self.inputs)
        if missing or extra:
            raise ValueError(f"prompt {self.name}: missing {sorted(missing)}, unexpected {sorted(extra)}")
        return self.text.format(**{k: str(v) for k, v in values.items()})


@cache
def load(name: str) -> PromptTemplate:
    raw = (_HERE / f"{name}.md").read_text(encoding="utf-8")
    header, sep, body = raw.partition("\n---\n")
    if not sep or not header.startswith("inputs:"):
        raise ValueError(f"prompt {name}: first line must be 'inputs: a, b' followed by a '---' line")
    declared = tuple(x.strip() for x in header.removeprefix("inputs:").split(",") if x.strip())
    used = {field for _, field, _, _ in string.Formatter().parse(body) if field}
    if used != set(declared):
        raise ValueError(f"prompt {name}: declares {sorted(declared)} but uses {sorted(used)}")
    return PromptTemplate(name, declared, body.strip() + "\n")
