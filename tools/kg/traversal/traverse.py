"""Confidence-propagating traversal: s(child) = s(parent) * confidence(edge), pruned below tau.

Both edge directions are followed; a backward step is named with the inverse relation.
Each reached node keeps its best (highest-product) path, which makes results explainable:
"metformin -treats(0.90)-> type 2 diabetes -has_symptom(0.80)-> polyuria = 0.72".

Guards against the two failure modes the AMG-RAG paper reports:
- vanishing scores: depth is capped (default 2) and scores are compared with tau directly
  (not tau per hop), so a long chain of good edges is not kept at a score nobody trusts;
- over-pruning: if nothing around a seed survives tau, its strongest direct edges down to
  ``floor`` are still returned, flagged ``weak``, so the reasoner sees local context and
  knows it is weak rather than seeing nothing.

Cost is bounded two ways, both documented trade-offs measured in benchmarks/kg_scale.py:
- an admission bar: once M nodes are reached, only edges that could lift a child above the
  M-th best score are fetched (exact: a child never scores above its parent);
- hubs (more than ``hub_degree`` relations, e.g. "autosomal recessive inheritance" with
  thousands of diseases) are expanded when they are question entities but not from deeper
  levels: their neighbours are too many to be specific, and reading them dominated latency.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Protocol

from amg.tools.kg.pipeline_types import Step
from amg.tools.kg.schema import RELATION_INVERSES
from amg.tools.kg.store.rows import Edge


@dataclass
class Reached:
    key: str
    name: str
    _: KW_ONLY
    type: str
    score: float
    path: list[Step] = field(default_factory=list)
    weak: bool = False

    @property
    def depth(self) -> int:
        return len(self.path)

    def explain(self) -> str:
        if not self.path:
            return f"{self.name} (question entity)"
        text = self.path[0]["source"]
        for step in self.path:
            text += f" -{step['relation']}({step['confidence']:.2f})-> {step['target']}"
        return f"{text} = {self.score:.2f}" + (" [weak]" if self.weak else "")


class Neighbors(Protocol):
    """The edges touching ``keys`` above a floor (one, or one per key), at most ``per_node`` each, skipping nodes of
    more than ``max_degree`` relations: ``QAReads.neighbors``."""

    def __call__(
        self, keys: list[str], min_confidence: float | dict[str, float], *, per_node: int, max_degree: int | None
    ) -> list[Edge]: ...


# defaults of AMG_TAU, AMG_MAX_DEPTH, AMG_MAX_NODES, AMG_TRAVERSAL and AMG_HUB_DEGREE
TAU, MAX_DEPTH, MAX_NODES, STRATEGY, HUB_DEGREE = 0.5, 2, 40, "bfs", 250
STRATEGIES = ("bfs", "dfs")
LINK_FLOOR = 0.3  # links between question entities are read down to this confidence; a finding settles a claim from it


@dataclass(frozen=True)
class Limits:
    """How far a traversal goes: the confidence threshold ``tau``, depth and node caps, the strategy, the edges read
    per node, the floor a question entity with nothing above tau is still read down to, and the hub degree."""

    tau: float = TAU
    max_depth: int = MAX_DEPTH
    max_nodes: int = MAX_NODES
    strategy: str = STRATEGY
    per_node: int = 50
    floor: float = 0.3
    hub_degree: int = HUB_DEGREE


def traverse(
    neighbors: Neighbors, seeds: dict[str, tuple[str, str]], limits: Limits | None = None
) -> dict[str, Reached]:
    """Reach nodes from ``seeds`` ({key: (name, type)}) and return them by key, seeds included."""
    limits = limits or Limits()
    tau, max_depth, max_nodes, strategy = limits.tau, limits.max_depth, limits.max_nodes, limits.strategy
    per_node, floor, hub_degree = limits.per_node, limits.floor, limits.hub_degree
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown traversal strategy {strategy!r}")
    reached = {k: Reached(k, name, type=typ, score=1.0) for k, (name, typ) in seeds.items()}
    if strategy == "bfs":
        _bfs(
            neighbors,
            reached,
            frontier=list(seeds),
            tau=tau,
            max_depth=max_depth,
            per_node=per_node,
            max_nodes=max_nodes,
            hub_degree=hub_degree,
        )
    else:
        for key in seeds:
            _dfs(
                neighbors,
                reached,
                key=key,
                tau=tau,
                depth_left=max_depth,
                per_node=per_node,
                max_nodes=max_nodes,
                hub_degree=hub_degree,
            )
    _rescue_isolated_seeds(neighbors, reached, seeds=seeds, tau=tau, floor=floor)
    return _cap(reached, seeds, max_nodes)


def question_links(
    neighbors: Neighbors, seeds: dict[str, tuple[str, str]], *, floor: float = LINK_FLOOR, per_node: int = 200
) -> list[Step]:
    """Edges between two question entities (each once, as stored), strongest first.

    A traversal never re-enters a seed, so the edge that often answers a question ("metformin
    -has_adverse_effect-> diarrhea" when both are named) is read here, not as a path.
    """
    if len(seeds) < 2:
        return []
    links: dict[tuple[str, str, str], Step] = {}
    for edge in neighbors(list(seeds), floor, per_node=per_node, max_degree=None):
        if edge["other"] not in seeds or edge["other"] == edge["key"]:
            continue
        source, target = (edge["key"], edge["other"]) if edge["forward"] else (edge["other"], edge["key"])
        links.setdefault(
            (source, edge["rel"], target),
            _step(seeds[source][0], edge["rel"], target=seeds[target][0], edge=edge, forward=True),
        )
    return sorted(links.values(), key=lambda s: -s["confidence"])


def finding_steps(edges: Sequence[Edge], seeds: dict[str, tuple[str, str]]) -> list[Step]:
    """A study's findings about the question entities (``edges`` as ``neighbors`` gives them), each once, as
    stored: "medical students improves quality assurance"."""
    found: dict[tuple[str, str, str], Step] = {}
    for edge in edges:
        here = seeds[edge["key"]][0]
        source, target = (here, edge["name"]) if edge["forward"] else (edge["name"], here)
        found.setdefault(
            (source, edge["rel"], target), _step(source, edge["rel"], target=target, edge=edge, forward=True)
        )
    return sorted(found.values(), key=lambda s: -s["confidence"])


def direct_nodes(edges: Sequence[Edge], seeds: dict[str, tuple[str, str]]) -> dict[str, Reached]:
    """The nodes ``edges`` (as ``neighbors`` gives them) reach in one step from a question entity, by key, each by its
    strongest edge; an edge to another question entity is a link, not a node."""
    found: dict[str, Reached] = {}
    for edge in sorted(edges, key=lambda e: -float(e["confidence"])):
        if edge["other"] in seeds or edge["other"] in found:
            continue
        name, kind = seeds[edge["key"]]
        seed = Reached(edge["key"], name, type=kind, score=1.0)
        _relax(found, seed, edge=edge, tau=0.0)
    return found


def _step(source: str, relation: str, *, target: str, edge: Edge, forward: bool) -> Step:
    return Step(
        source=source,
        relation=relation,
        target=target,
        confidence=float(edge["confidence"]),
        evidence_ids=list(edge["evidence_ids"] or []),
        forward=forward,
        description=edge.get("description") or "",
    )


def _relax(reached: dict[str, Reached], parent: Reached, *, edge: Edge, tau: float) -> Reached | None:
    """Offer the path through ``edge``; return the node if its best score improved."""
    score = parent.score * float(edge["confidence"])
    if score < tau or edge["other"] == parent.key:
        return None
    current = reached.get(edge["other"])
    if current is not None and (current.score >= score or current.depth == 0):
        return None
    relation = edge["rel"] if edge["forward"] else RELATION_INVERSES.get(edge["rel"], edge["rel"])
    step = _step(parent.name, relation, target=edge["name"], edge=edge, forward=edge["forward"])
    node = Reached(edge["other"], edge["name"], type=edge["type"], score=score, path=parent.path + [step])
    reached[node.key] = node
    return node


def _bfs(
    neighbors: Neighbors, reached, *, frontier: list[str], tau, max_depth, per_node, max_nodes, hub_degree
) -> None:
    for _ in range(max_depth):
        # a child scores at most its parent's score, so only edges that can lift a child over
        # the admission bar are fetched, and parents below the bar are not expanded at all
        bar = _admission_bar(reached, tau, max_nodes)
        floors = {k: bar / reached[k].score for k in frontier if reached[k].score >= bar}
        if not floors:
            return
        improved: dict[str, Reached] = {}
        parents = {k: reached[k] for k in floors}  # as of this level: paths never exceed max_depth
        seeds_level = not any(p.depth for p in parents.values())
        for edge in neighbors(list(floors), floors, per_node=per_node, max_degree=None if seeds_level else hub_degree):
            node = _relax(reached, parents[edge["key"]], edge=edge, tau=tau)
            if node is not None:
                improved[node.key] = node
        frontier = list(improved)


def _admission_bar(reached: dict[str, Reached], tau: float, max_nodes: int) -> float:
    """The score a new node needs to be among the ``max_nodes`` best (never below tau)."""
    if len(reached) < max_nodes:
        return tau
    return max(tau, sorted((r.score for r in reached.values()), reverse=True)[max_nodes - 1])


def _dfs(neighbors: Neighbors, reached, *, key: str, tau, depth_left, per_node, max_nodes, hub_degree) -> None:
    if depth_left == 0 or len(reached) >= max_nodes * 4:
        return
    parent = reached[key]
    hub_cap = hub_degree if parent.depth else None
    edges = sorted(
        neighbors([key], tau / parent.score, per_node=per_node, max_degree=hub_cap),
        key=lambda e: -float(e["confidence"]),
    )
    for edge in edges:
        if reached.get(key) is not parent:
            return  # a better path to this node was found meanwhile; that visit explores it
        node = _relax(reached, parent, edge=edge, tau=tau)
        if node is not None:
            _dfs(
                neighbors,
                reached,
                key=node.key,
                tau=tau,
                depth_left=depth_left - 1,
                per_node=per_node,
                max_nodes=max_nodes,
                hub_degree=hub_degree,
            )


def _rescue_isolated_seeds(neighbors: Neighbors, reached, *, seeds, tau: float, floor: float) -> None:
    lonely = [k for k in seeds if not any(r.path and r.path[0]["source"] == reached[k].name for r in reached.values())]
    if not lonely:
        return
    for edge in neighbors(lonely, floor, per_node=3, max_degree=None):
        if edge["other"] in reached or float(edge["confidence"]) >= tau:
            continue
        node = _relax(reached, reached[edge["key"]], edge=edge, tau=floor)
        if node is not None:
            node.weak = True


def _cap(reached: dict[str, Reached], seeds, max_nodes: int) -> dict[str, Reached]:
    """Seeds first, then the highest scores; keep paths intact (a kept node's ancestors are kept)."""
    ordered = sorted(reached.values(), key=lambda r: (r.key not in seeds, -r.score, r.depth, r.key))
    kept: dict[str, Reached] = {}
    for node in ordered:
        if len(kept) >= max(max_nodes, len(seeds)):
            break
        kept[node.key] = node
    return kept
