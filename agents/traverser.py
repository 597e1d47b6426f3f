"""Agent 5, confidence-propagating traverser: the question's subgraph with explainable paths.

Besides each entity's paths it returns the edges *between* question entities (``links``): when the options are
entities, the edge that answers ("metformin has_adverse_effect diarrhea") is one of them. A study's findings about
a question entity join the links, read beside the node budget and however weak: they are what a research question
asked before settled, and only a grounded finding is written at all. So are the few findings that state most of
the question's words, whatever entities their ends are.
Paths (tools/kg/pipeline_types.py) are ranked against the question (tools/kg/traversal/ranking.py): each path's
``rank`` is its place among its question entity's paths, best first. Besides the node budget, every direct fact
about a question entity is kept, hidden from the reasoner (the picture draws it when the answer names its end);
the facts a model read from evidence about a question entity (a textbook's "Metformin has adverse effect
Diarrhea") are ranked with the budget's paths, since curated edges (0.8-1.00) would always fill the budget before
a learned one and the reasoner would never see it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from typing import TypedDict

from amg.agents.finding_reader.reader import FINDING_NAMES
from amg.tools.kg.pipeline_types import GraphPath, Named, Step, Subgraph
from amg.tools.kg.records import EntityProps
from amg.tools.kg.schema import STUDY_RESULTS, normalize_key
from amg.tools.kg.store.protocols import QAReads
from amg.tools.kg.traversal.ranking import order, relevance, verbalise
from amg.tools.kg.traversal.traverse import (
    HUB_DEGREE,
    MAX_DEPTH,
    MAX_NODES,
    STRATEGY,
    TAU,
    Limits,
    Reached,
    direct_nodes,
    finding_steps,
    question_links,
    traverse,
)
from amg.tools.literature.query_words import query_words

Embed = Callable[[list[str]], list[list[float]]]
DIRECT_PER_ENTITY = 50  # direct facts per question entity kept besides the traversal's node budget
WORDED_FINDINGS = 3  # findings read because they state the question's words
STATED_WORDS, STATED_SHARE = 2, 0.5  # a finding states the question when it holds this many and this share of its words


@dataclass(frozen=True)
class TraversalSettings:
    """The settings the traverser reads; a run's Context has each under the same name (``TraversalSettings.of``)."""

    tau: float = TAU
    max_depth: int = MAX_DEPTH
    max_nodes: int = MAX_NODES
    traversal: str = STRATEGY
    hub_degree: int = HUB_DEGREE
    path_ranking: str = "mmr"
    question_links: bool = True
    min_path_relevance: float = 0.0

    @classmethod
    def of(cls, settings: object) -> TraversalSettings:
        return cls(**{f.name: getattr(settings, f.name) for f in fields(cls)})

    def limits(self) -> Limits:
        return Limits(
            tau=self.tau,
            max_depth=self.max_depth,
            max_nodes=self.max_nodes,
            strategy=self.traversal,
            hub_degree=self.hub_degree,
        )


class Traversed(TypedDict):
    """The traverser's state update."""

    subgraph: Subgraph


def traverse_subgraph(
    entities: Sequence[Named],
    store: QAReads,
    *,
    settings: TraversalSettings,
    question: str = "",
    query: str = "",
    embed: Embed | None = None,
) -> Traversed:
    """State update: the ``subgraph`` reached from the entities in the graph, with the findings that state the
    ``question``'s words; paths are ranked against ``query`` (the question and its options) with ``embed``."""
    with_links = settings.question_links
    present = store.entities([e["key"] for e in entities])
    seeds = {key: (props["name"], props.get("type", "other")) for key, props in present.items()}
    worded = findings_worded_like(question, store) if with_links and question else []
    if not seeds:
        return {"subgraph": Subgraph(nodes=[], seeds=[], links=worded)}
    reached = traverse(store.neighbors, seeds, settings.limits())
    # every direct fact about a question entity stays in the subgraph, hidden from the reasoner: the budget fills
    # with 1.00 curated paths (a drug class's members), and a weaker fact the answer rests on would be missing from
    # its picture (ranked with the rest, they cost accuracy: docs/architecture.md)
    direct = traverse(
        store.neighbors, seeds, replace(settings.limits(), max_depth=1, max_nodes=DIRECT_PER_ENTITY * len(seeds))
    )
    read = store.learned(list(seeds), list(STUDY_RESULTS), min_confidence=settings.tau, per_node=DIRECT_PER_ENTITY)
    learned = {key: node for key, node in direct_nodes(read, seeds).items() if key not in reached}
    seed_of = {name: key for key, (name, _) in seeds.items()}
    details = store.entities(list({**direct, **reached, **learned}))

    def as_path(node: Reached, rank: int = 0, hidden: bool = False) -> GraphPath:
        seed = node.path[0]["source"] if node.path else node.name
        return GraphPath(
            key=node.key,
            name=node.name,
            type=node.type,
            description=_description(details.get(node.key)),
            score=round(node.score, 4),
            depth=node.depth,
            weak=node.weak,
            seed=seed,
            seed_key=seed_of.get(seed, node.key) if node.path else node.key,
            path=node.explain(),
            steps=node.path,
            rank=rank,
            hidden=hidden,
        )

    nodes = [as_path(node) for node in [*reached.values(), *learned.values()]]
    _rank(nodes, query, embed=embed, ranking=settings.path_ranking, min_relevance=settings.min_path_relevance)
    nodes += [
        as_path(node, rank=len(nodes), hidden=True)
        for key, node in direct.items()
        if key not in reached and key not in learned
    ]
    links = question_links(store.neighbors, seeds) if with_links else []
    said = {(x["source"], x["relation"], x["target"]) for x in links}
    studies = finding_steps(store.findings(list(seeds), list(STUDY_RESULTS), 0.0), seeds)
    links += [x for x in studies if (x["source"], x["relation"], x["target"]) not in said]
    said |= {(x["source"], x["relation"], x["target"]) for x in studies}
    links += [x for x in worded if (x["source"], x["relation"], x["target"]) not in said]
    return {"subgraph": Subgraph(nodes=nodes, seeds=list(seeds), links=links)}


def without_studies(subgraph: Subgraph) -> Subgraph:
    """``subgraph`` without the study findings that rest on a paper: a research question that reads papers at length
    (its search's best match, or the paper the graph kept that states it) reads them alone, as the first reading did.
    Shown beside the paper, another study's finding on the same entities (another claim, another population) turned
    a small model's verdict away from what the paper says; the paper's own finding, one relation read from it, turned
    its "no" to "yes" (PubMedQA dev, offline after hybrid: 12 of 13 answers it lost), and the paper says it in full."""

    def study(step: Step) -> bool:
        return step["relation"] in FINDING_NAMES and any(i.startswith("pmid:") for i in step["evidence_ids"])

    nodes = [n for n in subgraph["nodes"] if not any(study(step) for step in n["steps"])]
    return Subgraph(nodes=nodes, seeds=subgraph["seeds"], links=[x for x in subgraph["links"] if not study(x)])


def findings_worded_like(question: str, store: QAReads) -> list[Step]:
    """The findings that state most of the question's words (``STATED_SHARE`` of them, at least
    ``STATED_WORDS``) in their ends and sentence, the ``WORDED_FINDINGS`` that state the most. A finding's ends
    are worded as its paper words them, often apart from the question's entities ("fetal anatomic survey predicts
    unanticipated fetal anomalies" for "Is fetal anatomic assessment on follow-up antepartum sonograms clinically
    useful?"). Every finding is read, so the cost grows with the findings the graph holds."""
    asked = _words(question)
    if len(asked) < STATED_WORDS:
        return []
    stated = []
    for row in store.every_finding(list(STUDY_RESULTS)):
        shared = len(asked & _words(f"{row['subject']} {row['name']} {row['description'] or ''}"))
        if shared >= STATED_WORDS and shared >= STATED_SHARE * len(asked):
            stated.append((shared, row))
    kept = [row for _, row in sorted(stated, key=lambda pair: -pair[0])[:WORDED_FINDINGS]]
    return finding_steps(kept, {row["key"]: (row["subject"], "") for row in kept})


def _words(text: str) -> set[str]:
    return {normalize_key(word) for word in query_words(text, limit=500)}


def _description(entity: EntityProps | None) -> str | None:
    """The entity's description, unless the audit weakened it."""
    if entity is None:
        return None
    return entity.get("description") if entity.get("description_status") != "weakened" else None


def _rank(nodes: list[GraphPath], query: str, *, embed: Embed | None, ranking: str, min_relevance: float) -> None:
    """Set each path's ``rank`` among its question entity's paths (0 = shown first) and, when paths are
    embedded, its ``relevance`` (cosine similarity of the path read as a sentence to the question); a path
    under ``min_relevance`` is marked ``hidden``: the reasoner and the picture do not show it."""
    paths = [n for n in nodes if n["depth"] > 0]
    texts = [verbalise(n["steps"]) for n in paths]
    needed = ranking != "confidence" or min_relevance > 0  # confidence order without a gate reads no vectors
    vectors = embed([query, *texts]) if embed and query and paths and needed else None
    if vectors is not None:
        for node, related in zip(paths, relevance(vectors[0], vectors[1:])):
            node["relevance"], node["hidden"] = round(related, 3), related < min_relevance
    if ranking == "confidence":
        vectors = None
    for seed in {n["seed_key"] for n in paths}:
        members = [i for i, n in enumerate(paths) if n["seed_key"] == seed]
        scores = [paths[i]["score"] for i in members]
        if vectors is None:
            ranked = order([], [[0.0]] * len(members), confidences=scores, how="confidence")
        else:
            ranked = order(vectors[0], [vectors[1 + i] for i in members], confidences=scores, how=ranking)
        for place, local in enumerate(ranked):
            paths[members[local]]["rank"] = place
