"""Runtime configuration: one dataclass of typed settings, each taken from its environment variable unless given.

LangGraph's ``context_schema`` (Studio shows and edits it; a partial context takes the rest from the
environment) and the home of every allowed value the CLI offers. ``.env`` in the working directory is
loaded once per process; real environment variables win. Imports nothing heavy (tests/unit/test_context.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields, replace
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from dotenv import load_dotenv

from amg.tools.choices import PATH_RANKINGS, PUBMED
from amg.tools.kg.traversal.traverse import HUB_DEGREE, MAX_DEPTH, MAX_NODES, STRATEGIES, STRATEGY, TAU
from amg.tools.llm.weights import LOCAL_MODELS

EVIDENCE_MODES = ("offline", "dynamic", "hybrid")
RECORDS_REMOTE = ("withhold", "allow")
LEARNING = ("after", "before", "off")
SOURCES = ("pubmed", "wikipedia", "textbook")  # each also the kind of the evidence it finds
PARSERS = ("llm", "vocabulary", "auto")  # AMG_QUERY_PARSER: how agents/query_parser.py finds entities
NLM_PUBMED = "https://ftp.ncbi.nlm.nih.gov/pubmed/"  # NLM's PubMed distribution: baseline/ and updatefiles/


def _setting(env: str, default: str, *, doc: str, choices: tuple = (), connection: bool = False):
    """A field read from ``env`` (or ``default``) when not given; ``connection``: it chooses what Resources open."""
    return field(
        default_factory=lambda: _from_env(env, default),
        metadata={"env": env, "fallback": default, "description": doc, "choices": choices, "connection": connection},
    )


def _from_env(env: str, default: str) -> str:
    _load_dotenv()
    return os.environ.get(env) or default


@dataclass(kw_only=True)
class Context:
    """Everything a run can be configured with, typed; a field left out (or None) comes from the environment."""

    openai_base_url: str = _setting(
        "OPENAI_BASE_URL", "", doc="OpenAI-compatible endpoint; empty = local llama.cpp", connection=True
    )
    openai_api_key: str = _setting("OPENAI_API_KEY", "", doc="API key for that endpoint", connection=True)
    llm_model: str = _setting("AMG_LLM_MODEL", "gpt-4o-mini", doc="model name at the endpoint", connection=True)
    llm_timeout: float = _setting(
        "AMG_LLM_TIMEOUT", "180", doc="seconds one model call may take, retries included", connection=True
    )
    local_model: str = _setting(
        "AMG_LOCAL_MODEL",
        "1.5b",
        doc="embedded model: 1.5b | 0.5b (fast, for the speed benchmarks) | smollm2 (the real-model tests)",
        choices=tuple(LOCAL_MODELS),
        connection=True,
    )
    records_remote: str = _setting(
        "AMG_RECORDS_REMOTE",
        "withhold",
        doc="your patient records with a model endpoint off this machine: withhold (nothing of them is sent; the "
        "model reads the knowledge graph's differential) | allow",
        choices=RECORDS_REMOTE,
    )
    neo4j_uri: str = _setting(
        "NEO4J_URI", "", doc="Neo4j 5 URI; empty = embedded ArcadeDB Bolt server", connection=True
    )
    neo4j_user: str = _setting("NEO4J_USER", "neo4j", doc="Neo4j user", connection=True)
    neo4j_password: str = _setting("NEO4J_PASSWORD", "", doc="Neo4j password", connection=True)
    neo4j_database: str = _setting("NEO4J_DATABASE", "", doc="Neo4j database; empty = server default", connection=True)
    data_dir: str = _setting(
        "AMG_DATA_DIR", "~/.local/share/amg", doc="graph, models, caches, vectors", connection=True
    )
    keep_alive: float = _setting(
        "AMG_KEEP_ALIVE",
        "300",
        doc="seconds the embedded graph and model servers stay up "
        "after the last command using them, so the next one finds them ready (0 = stop)",
    )
    pubmed: str = _setting(
        "AMG_PUBMED",
        "auto",
        doc="which PubMed: remote (NCBI) | local (the index `amg ingest pubmed` "
        "builds) | both (merged by PMID) | auto (local when NCBI cannot be reached)",
        choices=PUBMED,
    )
    pubmed_mirror: str = _setting(
        "AMG_PUBMED_MIRROR",
        NLM_PUBMED,
        doc="where `amg pubmed sync` and the refresh agent fetch NLM's baseline/ and updatefiles/ "
        "(a site's own mirror of them); off = the refresh agent does not sync",
    )
    ncbi_email: str = _setting("NCBI_EMAIL", "", doc="e-mail sent to NCBI with every request", connection=True)
    ncbi_api_key: str = _setting("NCBI_API_KEY", "", doc="NCBI key: 10 requests/s instead of 3", connection=True)
    embedding_model: str = _setting(
        "AMG_EMBEDDING_MODEL", "minilm", doc="minilm | mpnet | a local folder", connection=True
    )
    evidence_mode: str = _setting(
        "AMG_MODE",
        "hybrid",
        doc="evidence searched for the gaps (hybrid), every entity (dynamic) or none (offline)",
        choices=EVIDENCE_MODES,
    )
    sources: tuple[str, ...] = _setting(
        "AMG_SOURCES", "pubmed,wikipedia,textbook", doc="evidence sources, comma-separated", choices=SOURCES
    )
    tau: float = _setting("AMG_TAU", str(TAU), doc="confidence threshold for traversal")
    max_entities: int = _setting("AMG_MAX_ENTITIES", "8", doc="entities extracted per question (M)")
    max_depth: int = _setting("AMG_MAX_DEPTH", str(MAX_DEPTH), doc="traversal depth")
    max_nodes: int = _setting("AMG_MAX_NODES", str(MAX_NODES), doc="nodes kept per traversal")
    traversal: str = _setting("AMG_TRAVERSAL", STRATEGY, doc="bfs | dfs", choices=STRATEGIES)
    hub_degree: int = _setting(
        "AMG_HUB_DEGREE", str(HUB_DEGREE), doc="nodes with more relations are expanded only as question entities"
    )
    path_ranking: str = _setting(
        "AMG_PATH_RANKING",
        "mmr",
        doc="paths shown to the reasoner: mmr | similarity | confidence",
        choices=PATH_RANKINGS,
    )
    min_path_relevance: float = _setting(
        "AMG_MIN_PATH_RELEVANCE", "0.4", doc="paths less similar than this to the question are not shown (0 = all)"
    )
    question_links: bool = _setting(
        "AMG_QUESTION_LINKS", "true", doc="show the reasoner the edges between question entities"
    )
    query_parser: str = _setting(
        "AMG_QUERY_PARSER",
        "auto",
        doc="llm | vocabulary | auto: entities from the model and "
        "the vocabularies; the vocabularies alone (one call less, less accurate); "
        "or the vocabularies, and the model only when they find nothing",
        choices=PARSERS,
    )
    learn: str = _setting(
        "AMG_LEARN",
        "after",
        doc="after | before | off: score fetched evidence into the graph after the "
        "answer (the answer reads the evidence itself and is shown sooner), "
        "before it (the paper's order: the answer's paths include what was just learned), or never "
        "(a graph only read, e.g. shared; the answer is the same as after)",
        choices=LEARNING,
    )
    per_entity_reasoning: bool = _setting("AMG_PER_ENTITY_REASONING", "false", doc="one reasoning call per entity")
    answer_samples: int = _setting(
        "AMG_ANSWER_SAMPLES",
        "3",
        doc="open questions: short answers sampled besides the answer; how well they agree is what the printed "
        "confidence weighs most (0: none, ~4 s faster on the embedded model, the confidence then rests on P(True))",
    )
    max_evidence: int = _setting("AMG_MAX_EVIDENCE", "5", doc="evidence records fetched per entity")
    min_passage_relevance: float = _setting(
        "AMG_MIN_PASSAGE_RELEVANCE", "0.3", doc="textbook passages less similar than this to the entity are not used"
    )
    retrieval_uses_options: bool = _setting(
        "AMG_RETRIEVAL_USES_OPTIONS", "true", doc="multiple choice: look up entities of the options too"
    )
    keep_score: int = _setting("AMG_KEEP_SCORE", "4", doc="relations scored below this (1-10) are dropped")
    stale_days: int = _setting("AMG_STALE_DAYS", "180", doc="entities not refreshed for longer are stale")
    min_relations: int = _setting("AMG_MIN_RELATIONS", "3", doc="entities with fewer relations above tau are thin")

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:  # Studio may send a field it shows empty
                value = _from_env(f.metadata["env"], f.metadata["fallback"])
            try:
                setattr(self, f.name, _PARSE[str(f.type)](value))
            except (TypeError, ValueError):
                raise ValueError(f"invalid configuration: {f.metadata['env']}={value!r} is not a number") from None
        self.validate()

    def validate(self) -> None:
        """Raise ValueError with a readable message for any out-of-range knob."""
        problems = []
        for f in fields(self):
            choices, value = f.metadata["choices"], getattr(self, f.name)
            unknown = [v for v in value if v not in choices] if isinstance(value, tuple) else []
            if unknown:
                problems.append(f"{f.metadata['env']} has {', '.join(unknown)} (choose from {', '.join(choices)})")
            elif choices and not isinstance(value, tuple) and value not in choices:
                problems.append(f"{f.metadata['env']}={value!r} (choose {', '.join(choices)})")
        if not 0.0 <= self.min_path_relevance <= 1.0:
            problems.append(f"AMG_MIN_PATH_RELEVANCE={self.min_path_relevance} (0..1)")
        if not -1.0 <= self.min_passage_relevance <= 1.0:
            problems.append(f"AMG_MIN_PASSAGE_RELEVANCE={self.min_passage_relevance} (-1..1)")
        if not 0.0 < self.tau <= 1.0:
            problems.append(f"AMG_TAU={self.tau} (must be in (0, 1])")
        if not 1 <= self.max_entities <= 32:
            problems.append(f"AMG_MAX_ENTITIES={self.max_entities} (1..32)")
        if not 1 <= self.max_depth <= 5:
            problems.append(f"AMG_MAX_DEPTH={self.max_depth} (1..5)")
        if self.hub_degree < 1:
            problems.append(f"AMG_HUB_DEGREE={self.hub_degree} (at least 1)")
        if self.max_nodes < 1:
            problems.append(f"AMG_MAX_NODES={self.max_nodes} (at least 1)")
        if not 1 <= self.keep_score <= 10:
            problems.append(f"AMG_KEEP_SCORE={self.keep_score} (1..10)")
        if not 0 <= self.keep_alive <= 86400:
            problems.append(f"AMG_KEEP_ALIVE={self.keep_alive} (seconds, 0 to 86400)")
        mirror = urlsplit(self.pubmed_mirror)
        if self.pubmed_mirror != "off" and (mirror.scheme not in ("http", "https") or not mirror.netloc):
            problems.append(f"AMG_PUBMED_MIRROR={self.pubmed_mirror!r} (an http(s) URL, or off)")
        if not 0 < self.llm_timeout <= 3600:
            problems.append(f"AMG_LLM_TIMEOUT={self.llm_timeout} (seconds, more than 0 and at most 3600)")
        if problems:
            raise ValueError("invalid configuration: " + "; ".join(problems))

    @classmethod
    def choices(cls, name: str) -> tuple[str, ...]:
        """The allowed values of field ``name`` (the CLI's choices)."""
        return next(f.metadata["choices"] for f in fields(cls) if f.name == name)

    @property
    def connection(self) -> tuple:
        """The values of the fields that choose what Resources connect to (one shared Resources per tuple)."""
        return tuple(getattr(self, f.name) for f in fields(self) if f.metadata["connection"])

    @property
    def model_is_remote(self) -> bool:
        """Whether the model endpoint is off this machine (a configured URL whose host is not a loopback one)."""
        if not self.openai_base_url:
            return False
        host = (urlsplit(self.openai_base_url).hostname or "").lower()
        return host not in ("localhost", "127.0.0.1", "::1") and not host.startswith("127.")

    @property
    def records_withheld(self) -> bool:
        """Whether patient records must not reach the model: it is remote and the user did not allow it."""
        return self.model_is_remote and self.records_remote != "allow"

    @property
    def data_path(self) -> Path:
        return Path(self.data_dir).expanduser().resolve()

    def with_overrides(self, **changes: Any) -> Context:
        """A copy with the given non-None fields replaced (used by CLI flags); each change is of its field's type,
        which a signature cannot say field by field (hence Any)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def _flag(raw: object) -> bool:
    return raw if isinstance(raw, bool) else str(raw).strip().lower() in ("1", "true", "yes", "on")


def _words(raw: str | Iterable[object]) -> tuple[str, ...]:
    items = raw.split(",") if isinstance(raw, str) else raw
    return tuple(word for word in (str(item).strip() for item in items) if word)


# by annotation; a raw value is the environment's text, or what Studio sends (a number, a list, ...)
_PARSE: dict[str, Callable[[Any], object]] = {
    "str": str,
    "int": int,
    "float": float,
    "bool": _flag,
    "tuple[str, ...]": _words,
}


@cache
def _load_dotenv() -> None:
    load_dotenv(override=False)


@cache
def _default_context() -> Context:
    return Context()


def run_context(runtime) -> Context:
    """The run's Context, or the environment's (built once) when the caller passed none."""
    return runtime.context if isinstance(runtime.context, Context) else _default_context()
