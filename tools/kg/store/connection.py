"""Open the graph: the configured Neo4j 5 server, or the embedded ArcadeDB default."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from neo4j import Driver, GraphDatabase
from neo4j.exceptions import (
    AuthError,
    ConfigurationError,
    Neo4jError,
    ServiceUnavailable,
)

from amg.tools.kg.store.server import USER, embedded_graph_server
from amg.tools.servers import LocalServer

logging.getLogger("neo4j").setLevel(logging.ERROR)  # its retry chatter is not for end users


class GraphUnavailable(RuntimeError):
    """The graph server cannot be reached or refused us; the message says how to fix it."""


def connect_graph(
    uri: str, user: str, *, password: str, database: str, data_dir: Path, keep_alive_s: float = 0.0
) -> tuple[Driver, str | None, LocalServer | None]:
    """A verified driver, the database name to use (None = server default), and the local server if started
    (kept up ``keep_alive_s`` after its last client)."""
    server = None
    if not uri:
        server, password = embedded_graph_server(data_dir, keep_alive_s=keep_alive_s)
        uri, user = f"bolt://127.0.0.1:{server.acquire()['bolt']}", USER
        database = ""
    try:
        driver = GraphDatabase.driver(uri, auth=(user, password), connection_timeout=5, max_transaction_retry_time=5)
        driver.verify_connectivity()
    except AuthError:
        raise GraphUnavailable(f"graph at {uri} refused the credentials; check NEO4J_USER/NEO4J_PASSWORD") from None
    except (ServiceUnavailable, OSError):
        raise GraphUnavailable(
            f"graph at {uri} is not answering; start Neo4j 5 (docker compose up -d) or unset NEO4J_URI "
            "to use the embedded server"
        ) from None
    except (ConfigurationError, ValueError) as exc:
        raise GraphUnavailable(f"NEO4J_URI={uri!r} is not a valid Bolt/Neo4j URI ({exc})") from None
    except Neo4jError as exc:
        raise GraphUnavailable(f"graph at {uri} failed: {exc.message or exc}") from None
    return driver, database or None, server


def graph_lost(exc: Exception) -> str:
    """One line for a graph server that stopped answering after the connection was made."""
    uri = os.environ.get("NEO4J_URI")
    where = f"graph at {uri}" if uri else "the local graph server"
    detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0].rstrip(":")[:160]
    return f"{where} stopped answering during the run ({detail}); check it with `amg doctor`"
