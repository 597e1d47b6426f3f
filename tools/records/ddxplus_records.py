"""DDXPlus patients as records: evidence codes read with the dataset's dictionaries, found beside the records file."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def reader_beside(path: Path, names: Any, graph: Any) -> Any | None:
    """The DDXPlus record reader for ``path`` when the dataset's dictionaries lie beside it, else None."""
    return None
