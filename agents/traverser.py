"""Agent 5, confidence-propagating traverser: the question's subgraph with explainable paths."""

from __future__ import annotations

from tools.kg.store import GraphStore
from tools.kg.traversal import traverse


def traverse_subgraph(entities: list[dict], store: GraphStore, tau: float, max_depth: int, max_nodes: int,
                      strategy: str, hub_degree: int) -> dict:  # fmt: skip
    """State update: ``subgraph`` = {nodes: [...], seeds: [...]} reached from the entities in the graph."""
    present = store.entities([e["key"] for e in entities])
    seeds = {key: (props["name"], props.get("type", "other")) for key, props in present.items()}
    if not seeds:
        return {"subgraph": {"nodes": [], "seeds": []}}
    reached = traverse(store.neighbors, seeds, tau=tau, max_depth=max_depth, max_nodes=max_nodes, strategy=strategy,
                       hub_degree=hub_degree)
    details = store.entities(list(reached))
    nodes = []
    for node in reached.values():
        nodes.append({
            "key": node.key, "name": node.name, "type": node.type, "score": round(node.score, 4),
            "depth": node.depth, "weak": node.weak, "seed": node.path[0].source if node.path else node.name,
            "path": node.explain(), "description": (details.get(node.key) or {}).get("description"),
            "steps": [{"source": s.source, "relation": s.relation, "target": s.target, "confidence": s.confidence,
                       "evidence_ids": s.evidence_ids, "forward": s.forward} for s in node.path],
        })  # fmt: skip
    return {"subgraph": {"nodes": nodes, "seeds": list(seeds)}}
