"""Runtime configuration: one dataclass, every field falls back to an environment variable.

Used as LangGraph's ``context_schema`` (Studio shows and edits it) and by the CLI.
``.env`` in the working directory is loaded first; real environment variables win.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from functools import cache
from pathlib import Path

from dotenv import load_dotenv

from amg.agents.query_parser import PARSERS
from amg.tools.evidence.pubmed_sources import CHOICES as PUBMED_CHOICES
from amg.tools.kg.ranking import RANKINGS
from amg.tools.kg.traversal import HUB_DEGREE, MAX_DEPTH, MAX_NODES, STRATEGY, TAU

MODES = ("offline", "dynamic", "hybrid")
LEARNING = ("after", "before")
STRATEGIES = ("bfs", "dfs")
SOURCES = ("pubmed", "wikipedia", "textbooks")


def _env(name: str, default: str = "", doc: str = "") -> object:
    return field(default=None, metadata={"env": name, "default": default, "description": doc})


@dataclass(kw_only=True)
class Context:
    """Everything a run can be configured with; ``None`` means "take the env or default"."""

    openai_base_url: str | None = _env("OPENAI_BASE_URL", "", "OpenAI-compatible endpoint; empty = local llama.cpp")
    openai_api_key: str | None = _env("OPENAI_API_KEY", "", "API key for that endpoint")
    llm_model: str | None = _env("AMG_LLM_MODEL", "gpt-4o-mini", "model name at the endpoint")
    llm_timeout: float | None = _env("AMG_LLM_TIMEOUT", "180", "seconds one model call may take, retries included")
    local_model: str | None = _env("AMG_LOCAL_MODEL", "1.5b", "embedded model: 1.5b | 0.5b (fast, for tests) | smollm2")
    neo4j_uri: str | None = _env("NEO4J_URI", "", "Neo4j 5 URI; empty = embedded ArcadeDB Bolt server")
    neo4j_user: str | None = _env("NEO4J_USER", "neo4j", "Neo4j user")
    neo4j_password: str | None = _env("NEO4J_PASSWORD", "", "Neo4j password")
    neo4j_database: str | None = _env("NEO4J_DATABASE", "", "Neo4j database; empty = server default")
    data_dir: str | None = _env("AMG_DATA_DIR", "~/.local/share/amg", "graph, models, caches, vectors")
    keep_alive: float | None = _env("AMG_KEEP_ALIVE", "300", "seconds the embedded graph and model servers stay up "
                                    "after the last command using them, so the next one finds them ready (0 = stop)")
    pubmed: str | None = _env("AMG_PUBMED", "auto", "which PubMed: remote (NCBI) | local (the index `amg ingest pubmed` "
                              "builds) | both (merged by PMID) | auto (local when NCBI cannot be reached)")
    ncbi_email: str | None = _env("NCBI_EMAIL", "", "e-mail sent to NCBI with every request")
    ncbi_api_key: str | None = _env("NCBI_API_KEY", "", "NCBI key: 10 requests/s instead of 3")
    embedding_model: str | None = _env("AMG_EMBEDDING_MODEL", "minilm", "minilm | mpnet | a local folder")
    mode: str | None = _env("AMG_MODE", "hybrid", "offline | dynamic | hybrid")
    sources: str | None = _env("AMG_SOURCES", "pubmed,wikipedia,textbooks", "evidence sources, comma-separated")
    tau: float | None = _env("AMG_TAU", str(TAU), "confidence threshold for traversal")
    max_entities: int | None = _env("AMG_MAX_ENTITIES", "8", "entities extracted per question (M)")
    max_depth: int | None = _env("AMG_MAX_DEPTH", str(MAX_DEPTH), "traversal depth")
    max_nodes: int | None = _env("AMG_MAX_NODES", str(MAX_NODES), "nodes kept per traversal")
    traversal: str | None = _env("AMG_TRAVERSAL", STRATEGY, "bfs | dfs")
    hub_degree: int | None = _env("AMG_HUB_DEGREE", str(HUB_DEGREE), "nodes with more relations are expanded only as question entities")
    path_ranking: str | None = _env("AMG_PATH_RANKING", "mmr", "paths shown to the reasoner: mmr | similarity | confidence")
    min_path_relevance: float | None = _env("AMG_MIN_PATH_RELEVANCE", "0.4",
                                            "paths less similar than this to the question are not shown (0 = all)")
    question_links: bool | None = _env("AMG_QUESTION_LINKS", "true", "show the reasoner the edges between question entities")
    query_parser: str | None = _env("AMG_QUERY_PARSER", "auto", "llm | vocabulary | auto: entities from the model and "
                                    "the vocabularies; the vocabularies alone (one call less; 3.6 points less "
                                    "accurate); or the vocabularies, and the model only when they find nothing")
    learn: str | None = _env("AMG_LEARN", "after", "after | before: score fetched evidence into the graph after the answer "
                             "(the answer reads the evidence itself; the demo answered at 34 s instead of 44 s) or before "
                             "it (the paper's order: the answer's paths include what was just learned)")
    per_entity_reasoning: bool | None = _env("AMG_PER_ENTITY_REASONING", "false", "one reasoning call per entity")
    max_evidence: int | None = _env("AMG_MAX_EVIDENCE", "5", "evidence records fetched per entity")
    min_passage_relevance: float | None = _env("AMG_MIN_PASSAGE_RELEVANCE", "0.3",
                                               "textbook passages less similar than this to the entity are not used")
    retrieval_uses_options: bool | None = _env("AMG_RETRIEVAL_USES_OPTIONS", "true",
                                               "multiple choice: look up entities of the options too")
    keep_score: int | None = _env("AMG_KEEP_SCORE", "4", "relations scored below this (1-10) are dropped")
    stale_days: int | None = _env("AMG_STALE_DAYS", "180", "entities not refreshed for longer are stale")
    min_relations: int | None = _env("AMG_MIN_RELATIONS", "3", "entities with fewer relations above tau are thin")

    def __post_init__(self) -> None:
        load_dotenv(override=False)
        for f in fields(self):
            if getattr(self, f.name) is None:
                raw = os.environ.get(f.metadata["env"]) or f.metadata["default"]
                try:
                    setattr(self, f.name, _coerce(raw, f.type))
                except ValueError:
                    raise ValueError(f"invalid configuration: {f.metadata['env']}={raw!r} is not a number") from None
        self.validate()

    def validate(self) -> None:
        """Raise ValueError with a readable message for any out-of-range knob."""
        problems = []
        if self.mode not in MODES:
            problems.append(f"AMG_MODE={self.mode!r} (choose {', '.join(MODES)})")
        if self.learn not in LEARNING:
            problems.append(f"AMG_LEARN={self.learn!r} (choose {' or '.join(LEARNING)})")
        if self.traversal not in STRATEGIES:
            problems.append(f"AMG_TRAVERSAL={self.traversal!r} (choose bfs or dfs)")
        if self.path_ranking not in RANKINGS:
            problems.append(f"AMG_PATH_RANKING={self.path_ranking!r} (choose {', '.join(RANKINGS)})")
        if self.query_parser not in PARSERS:
            problems.append(f"AMG_QUERY_PARSER={self.query_parser!r} (choose {', '.join(PARSERS)})")
        if not 0.0 <= float(self.min_path_relevance) <= 1.0:
            problems.append(f"AMG_MIN_PATH_RELEVANCE={self.min_path_relevance} (0..1)")
        if not -1.0 <= float(self.min_passage_relevance) <= 1.0:
            problems.append(f"AMG_MIN_PASSAGE_RELEVANCE={self.min_passage_relevance} (-1..1)")
        if not 0.0 < float(self.tau) <= 1.0:
            problems.append(f"AMG_TAU={self.tau} (must be in (0, 1])")
        if not 1 <= int(self.max_entities) <= 32:
            problems.append(f"AMG_MAX_ENTITIES={self.max_entities} (1..32)")
        if not 1 <= int(self.max_depth) <= 5:
            problems.append(f"AMG_MAX_DEPTH={self.max_depth} (1..5)")
        if int(self.hub_degree) < 1:
            problems.append(f"AMG_HUB_DEGREE={self.hub_degree} (at least 1)")
        if int(self.max_nodes) < 1:
            problems.append(f"AMG_MAX_NODES={self.max_nodes} (at least 1)")
        if not 1 <= int(self.keep_score) <= 10:
            problems.append(f"AMG_KEEP_SCORE={self.keep_score} (1..10)")
        if not 0 <= float(self.keep_alive) <= 86400:
            problems.append(f"AMG_KEEP_ALIVE={self.keep_alive} (seconds, 0 to 86400)")
        if not 0 < float(self.llm_timeout) <= 3600:
            problems.append(f"AMG_LLM_TIMEOUT={self.llm_timeout} (seconds, more than 0 and at most 3600)")
        if self.pubmed not in PUBMED_CHOICES:
            problems.append(f"AMG_PUBMED={self.pubmed!r} (choose {', '.join(PUBMED_CHOICES)})")
        unknown = set(self.source_list) - set(SOURCES)
        if unknown:
            problems.append(f"AMG_SOURCES has {', '.join(sorted(unknown))} (choose from {', '.join(SOURCES)})")
        if problems:
            raise ValueError("invalid configuration: " + "; ".join(problems))

    @property
    def source_list(self) -> list[str]:
        return [s.strip() for s in str(self.sources).split(",") if s.strip()]

    @property
    def data_path(self) -> Path:
        return Path(str(self.data_dir)).expanduser().resolve()

    def with_overrides(self, **changes: object) -> Context:
        """A copy with the given non-None fields replaced (used by CLI flags)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def _coerce(raw: str, annotation: object) -> object:
    text = str(annotation)
    if "bool" in text:
        return raw.strip().lower() in ("1", "true", "yes", "on")
    if "int" in text:
        return int(raw)
    if "float" in text:
        return float(raw)
    return raw


@cache
def _default_context() -> Context:
    return Context()


def run_context(runtime) -> Context:
    """The run's Context, or the environment's (built once) when the caller passed none."""
    return runtime.context if isinstance(runtime.context, Context) else _default_context()
