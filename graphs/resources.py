"""Composition root: the tools a run needs, built lazily from a Context and shared per process.

Nothing here is imported by agents; graph nodes and the CLI hand agents what they need.
Tests pass ready-made stand-ins as overrides (``Resources(ctx, llm=FakeChat(...))``).
"""

from __future__ import annotations

import contextlib
import threading
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from amg.graphs.context import Context
from amg.tools.kg.store.protocols import GraphStore
from amg.tools.literature.index import LiteratureIndex, index_exists, index_path
from amg.tools.literature.sentence_vectors import SentenceVectors
from amg.tools.llm.confidence_maps import CalibrationMap, extraction_reliability, map_for
from amg.tools.llm.reader import Reader
from amg.tools.vectors.embeddings import embed, load_embedder, model_path

if TYPE_CHECKING:  # each is imported where it is built: neo4j, chromadb, openai take seconds to load
    from amg.tools.evidence.finder import EvidenceFinder
    from amg.tools.kg.linking import EntityLinker
    from amg.tools.records.similarity import PatientIndex
    from amg.tools.records.store import RecordStore
    from amg.tools.vectors.passages import PassageStore


class Resources:
    def __init__(self, context: Context, **overrides: object):
        _check_data_dir(context.data_path)
        self.context = context
        self._locks = {"store": threading.Lock(), "llm": threading.Lock()}  # each starts once; both may start at once
        self._given = set(overrides)
        for name, value in overrides.items():
            self.__dict__[name] = value  # pre-fills the cached properties below
        self.local_servers: list = []

    @cached_property
    def store(self) -> GraphStore:
        from amg.tools.kg.store.connection import connect_graph
        from amg.tools.kg.store.neo4j_store import Neo4jStore

        c = self.context
        with self._locks["store"]:
            if "store" in self.__dict__:  # another thread started it while this one waited
                return self.__dict__["store"]
            driver, database, server = connect_graph(
                c.neo4j_uri,
                c.neo4j_user,
                password=c.neo4j_password,
                database=c.neo4j_database,
                data_dir=c.data_path,
                keep_alive_s=c.keep_alive,
            )
            if server is not None:
                self.local_servers.append(server)
            store = Neo4jStore(driver, database)
            store.ensure_schema()
            self.__dict__["store"] = store
            return store

    @cached_property
    def llm(self):
        from amg.tools.llm.chat import chat_model

        c = self.context
        with self._locks["llm"]:
            if "llm" in self.__dict__:
                return self.__dict__["llm"]
            llm, server = chat_model(
                base_url=c.openai_base_url,
                api_key=c.openai_api_key,
                model=c.llm_model,
                local_model=c.local_model,
                data_dir=c.data_path,
                timeout_s=c.llm_timeout,
                keep_alive_s=c.keep_alive,
            )
            if server is not None:
                self.local_servers.append(server)
            self.__dict__["llm"] = llm
            return llm

    def start_in_background(self, *names: str) -> None:
        """Start these resources on side threads, so a run does not wait for each in turn (the embedded
        model server loads while the graph server starts and the evidence is searched, and the embedder
        loads before the textbooks are searched). A failure is left for the run to meet, and report,
        where it needs the resource."""
        for name in names:
            threading.Thread(target=self._start_quietly, args=(name,), daemon=True).start()

    def _start_quietly(self, name: str) -> None:
        with contextlib.suppress(Exception):
            getattr(self, name)

    @property
    def model_name(self) -> str:
        return getattr(self.llm, "model_name", None) or self.context.llm_model

    def reader(self, keep_score: int) -> Reader:
        """The model as it reads evidence into the graph, with its measured extraction reliability."""
        return Reader(
            self.llm, self.model_name, reliability=extraction_reliability(self.model_name), keep_score=keep_score
        )

    def calibration(self, method: str = "kg", kind: str = "exam", mode: str | None = None) -> CalibrationMap | None:
        """The answer-confidence map measured for this model answering ``kind`` questions by ``method``, if any
        (tools/llm/maps/); the QA graph's map for the evidence ``mode`` first (``kg-hybrid``; default the
        context's), then the graph's."""
        if method == "kg":
            return map_for(self.model_name, f"kg-{mode or self.context.evidence_mode}", kind) or map_for(
                self.model_name, "kg", kind
            )
        return map_for(self.model_name, method, kind)

    @cached_property
    def embedding_path(self):
        return model_path(self.context.embedding_model, self.context.data_path)

    @cached_property
    def embedder(self):
        """The sentence-transformers model: seconds to load, so a run may start it in the background."""
        return load_embedder(str(self.embedding_path))

    def embed(self, texts: list[str]) -> list[list[float]]:
        return embed(str(self.embedding_path), texts)

    @cached_property
    def passages(self) -> PassageStore:
        from amg.tools.vectors.passages import PassageStore

        return PassageStore(self.context.data_path / "vectors", self.embedding_path)

    @cached_property
    def linker(self) -> EntityLinker:
        from amg.tools.kg.linking import EntityLinker

        return EntityLinker(self.store, self.context.data_path / "vectors", model_path=self.embedding_path)

    @cached_property
    def records(self) -> RecordStore | None:
        """The clinician's own patients (`amg records ingest`), or None when none were ever ingested."""
        from amg.tools.records.store import RecordStore

        folder = self.context.data_path / "records"
        return RecordStore(folder) if (folder / "records.sqlite").is_file() else None

    @property
    def patient_index(self) -> PatientIndex | None:
        """The stored patients as a similarity index (rebuilt when the records changed), or None when there are none."""
        records = self.records
        if records is None or records.count() == 0:
            return None
        version = records.version()
        cached = self.__dict__.get("_patient_index")
        if cached is None or cached[0] != version:
            from amg.tools.records.weights import hpo_ancestors, patient_specificity

            cached = (version, records.index(hpo_ancestors(), patient_specificity))
            self.__dict__["_patient_index"] = cached
        return cached[1]

    @cached_property
    def literature(self) -> LiteratureIndex | None:
        """The local literature index (`amg ingest pubmed|papers`, `amg pubmed sync`), or None when there is none."""
        path = self.context.data_path
        return LiteratureIndex(index_path(path)) if index_exists(path) else None

    @cached_property
    def sentence_vectors(self) -> SentenceVectors | None:
        """The index's sentence vectors (computed once per paper), for a claim check's re-ranking and reading."""
        if self.literature is None:
            return None
        model = self.context.embedding_model
        return SentenceVectors(self.literature.path / "sentence_vectors.sqlite", model, self.embed)

    @cached_property
    def evidence(self) -> EvidenceFinder:
        from amg.tools.evidence.finder import EvidenceFinder
        from amg.tools.evidence.pubmed import PubMedClient
        from amg.tools.evidence.pubmed_sources import LocalPubMed, PubMedSources
        from amg.tools.evidence.request_cache import RequestCache
        from amg.tools.evidence.wikipedia_client import WikipediaClient

        c = self.context
        cache = RequestCache(c.data_path / "cache" / "remote.sqlite")
        local = LocalPubMed(self.literature) if self.literature is not None else None
        return EvidenceFinder(
            pubmed=PubMedSources(c.pubmed, PubMedClient(c.ncbi_email, c.ncbi_api_key, cache=cache), local=local),
            wikipedia=WikipediaClient(cache),
            passages=self.passages,
            min_passage_score=c.min_passage_relevance,
        )

    def close(self) -> None:
        """Close the driver and release local servers; a later use connects again."""
        if "store" in self.__dict__:
            with contextlib.suppress(Exception):  # a driver torn by Ctrl-C mid-read may fail to close (BufferError)
                self.store.close()
        for server in self.local_servers:
            server.release()
        self.local_servers.clear()
        for name in {"store", "llm", "linker"} - self._given:
            self.__dict__.pop(name, None)


def _check_data_dir(path: Path) -> None:
    """ValueError unless ``path`` is a folder or can become one."""
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir():
        raise ValueError(f"AMG_DATA_DIR={path} cannot be a folder: {existing} is a file; point it at a folder")


_SHARED: dict[tuple, Resources] = {}  # the process's Resources, by Context.connection
_SHARED_LOCK = threading.Lock()


def resources_for(context: Context) -> Resources:
    """The process-wide Resources for this context's connections (built once)."""
    with _SHARED_LOCK:
        if context.connection not in _SHARED:
            _SHARED[context.connection] = Resources(context)
        return _SHARED[context.connection]


def install(resources: Resources) -> None:
    """Make ``resources`` the shared instance for its context's connections (tests, embedding apps)."""
    with _SHARED_LOCK:
        _SHARED[resources.context.connection] = resources
