"""``amg doctor``: what is configured, whether it answers, versions, and a one-line fix."""

from __future__ import annotations

import concurrent.futures
import time
from importlib.metadata import PackageNotFoundError, version

from amg.graphs.context import Context
from amg.graphs.resources import Resources
from amg.tools.literature.index import LiteratureIndex, index_exists, index_path

PACKAGES = (
    "langgraph",
    "langchain-openai",
    "neo4j",
    "arcadedb-embedded",
    "chromadb",
    "sentence-transformers",
    "llama-cpp-python",
    "biopython",
    "wikipedia",
)


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def _check(name: str, required: bool, *, probe, fix: str) -> tuple[str, bool, str]:
    started = time.perf_counter()
    try:
        detail = probe()
        return f"  ok    {name:<12} {detail} ({(time.perf_counter() - started) * 1000:.0f} ms)", True, ""
    except Exception as exc:  # doctor reports every failure as a line, never a traceback
        status = "DOWN " if required else "warn "
        message = " ".join(str(exc).split())[:200] or type(exc).__name__
        return f"  {status} {name:<12} {message}\n        fix: {fix}", not required, fix


def _with_timeout(fn, seconds: float):
    def run():
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(fn).result(timeout=seconds)

    return run


def doctor(context: Context) -> int:
    res = Resources(context)
    print(
        f"AMG doctor  data dir: {context.data_path}  mode: {context.evidence_mode}  "
        f"sources: {', '.join(context.sources)}"
    )
    print("versions: " + ", ".join(f"{p} {_version(p)}" for p in PACKAGES))
    graph_where = context.neo4j_uri or "embedded ArcadeDB (NEO4J_URI unset)"
    llm_where = context.openai_base_url or f"embedded llama.cpp, {context.local_model} model (OPENAI_BASE_URL unset)"

    def graph():
        stats = res.store.stats()
        agent = res.store.server_agent()
        return f"{graph_where}: {agent}; {stats['entities']:,} entities, {stats['relations']:,} relations"

    def llm():
        reply = res.llm.bind(max_tokens=5).invoke("Reply with the single word OK.")
        return f"{llm_where}: model {res.model_name} replied {str(reply.content).strip()[:20]!r}"

    def vectors():
        passages = res.passages.collection.count()
        return (
            f"{res.embedding_path.name if res.embedding_path.name != 'model' else context.embedding_model} "
            f"embeddings; Chroma at {context.data_path / 'vectors'} with {passages:,} passages"
        )

    def pubmed():
        from amg.tools.evidence.pubmed_sources import PubMedSources

        sources = res.evidence.pubmed
        if not isinstance(sources, PubMedSources):
            raise ValueError("no PubMed source is configured")
        ids = sources.ncbi().search("metformin", max_results=1)
        return f"answers ({len(ids)} hit); email {'set' if context.ncbi_email else 'NOT set (set NCBI_EMAIL)'}"

    def local_pubmed():
        if not index_exists(context.data_path):
            raise FileNotFoundError("no local PubMed index")
        index = LiteratureIndex(index_path(context.data_path))
        try:
            stats = index.stats()
        finally:
            index.close()
        return (
            f"{stats['records']:,} records, newest {stats['newest_year'] or 'n.d.'}, "
            f"{stats['bytes'] / 2**20:,.0f} MB at {index.path}; AMG_PUBMED={context.pubmed}"
        )

    def wikipedia():
        client = res.evidence.wikipedia
        if client is None:
            raise ValueError("no Wikipedia client is configured")
        pages = client.lookup("Metformin", max_pages=1)
        return f"answers ({len(pages)} page)"

    checks = [
        ("graph", True, graph, "unset NEO4J_URI for the embedded server, or start Neo4j 5 and check NEO4J_*"),
        ("llm", True, llm, "unset OPENAI_BASE_URL for the embedded model, or check OPENAI_BASE_URL/OPENAI_API_KEY"),
        ("vectors", True, vectors, "run `make install` (installs the local embedding model)"),
        ("pubmed", False, _with_timeout(pubmed, 20), "optional: needs internet; answers then come from the graph"),
        (
            "local pubmed",
            False,
            local_pubmed,
            "optional: `amg ingest pubmed FILE...` (NLM XML or JSON lines) for literature without the network",
        ),
        ("wikipedia", False, _with_timeout(wikipedia, 20), "optional: needs internet"),
    ]
    healthy = True
    try:
        for name, required, probe, fix in checks:
            line, ok, _ = _check(name, required, probe=probe, fix=fix)
            print(line, flush=True)
            healthy &= ok
    finally:
        res.close()
    print("all required components answer" if healthy else "some required component is down (see fix lines)")
    return 0 if healthy else 1
