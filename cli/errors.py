"""The exceptions the CLI reports as one ``amg: error:`` line, named by module so none is imported to catch it."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping

REPORTED = {
    "builtins": ("ValueError", "FileNotFoundError"),
    "amg.tools.kg.store.connection": ("GraphUnavailable",),
    "amg.tools.servers": ("LocalServerError",),
    "amg.tools.vectors.embeddings": ("EmbeddingModelMissing",),
    "amg.tools.evidence.remote_calls": ("SourceUnavailable",),
    "amg.tools.literature.mirror": ("MirrorError",),
    "amg.tools.llm.chat": ("ModelUnavailable",),
    "openai": ("APIConnectionError", "AuthenticationError", "NotFoundError"),
}
GRAPH_LOST = {"neo4j.exceptions": ("ServiceUnavailable", "SessionExpired")}  # after the connection was made


def loaded(table: Mapping[str, tuple[str, ...]]) -> tuple[type[BaseException], ...]:
    """The classes of ``table`` whose module is imported: an exception of any other cannot have been raised."""
    return tuple(
        getattr(sys.modules[module], name) for module, names in table.items() if module in sys.modules for name in names
    )


def user_errors() -> tuple[type[BaseException], ...]:
    """Every class of ``REPORTED``, importing their modules (openai and the model client: about a second)."""
    for module in REPORTED:
        importlib.import_module(module)
    return loaded(REPORTED)
