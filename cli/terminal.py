"""Text from the model or the graph made safe for a terminal.

Control characters (ANSI escapes, bells, carriage returns) and bidirectional overrides can
rewrite what a terminal shows (OWASP LLM05): human output drops them; JSON output keeps the
data and writes them as ``\\uXXXX`` escapes.
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, C1 controls, bidi marks, embeddings, overrides and isolates
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` without characters that drive the terminal rather than show."""
    return _UNSAFE.sub("", text)


def json_printable(dumped: str) -> str:
    """A JSON document with the same characters written as escapes (the data is unchanged)."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", dumped)
