"""What the query mixins of ``Neo4jStore`` (neo4j_reads, neo4j_bookkeeping, neo4j_literature, neo4j_inspection) use
from the store they are mixed into: a read that returns the records' data, and a transaction. Declared once here so
that each mixin's calls are checked; ``Neo4jStore`` (neo4j_store.py) implements both."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class BoltAccess:
    def read(self, query: str, **params: object) -> list[dict[str, Any]]:
        """The records of a parameterised read query, each as its data (column name -> value)."""
        raise NotImplementedError

    def write(self, work: Callable[..., T], *args: object) -> T:
        """``work(tx, *args)`` in one write transaction."""
        raise NotImplementedError
