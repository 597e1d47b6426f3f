"""Reading text files a user hands us (topics, textbooks): binary files are refused, bad bytes replaced."""

from __future__ import annotations

from pathlib import Path


def read_user_text(path: Path, expected: str) -> str:
    """The file's text; ValueError naming ``expected`` when it looks binary."""
    raw = path.read_bytes()
    if b"\x00" in raw[:4096]:
        raise ValueError(f"{path} looks binary; {expected}")
    return raw.decode("utf-8", errors="replace")
