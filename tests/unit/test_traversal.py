"""Confidence propagation on a small hand-made graph with known path products."""

from __future__ import annotations

import pytest

from amg.tools.kg.traversal.traverse import Limits, traverse


def test_unknown_strategy_is_rejected():
    with pytest.raises(ValueError, match="strategy"):
        traverse(lambda *a: [], {}, Limits(strategy="random"))


def in_memory_neighbors(edges):
    """The QAReads.neighbors contract (tools/kg/store/protocols.py) over a list of (source, target, confidence)."""

    def neighbors(keys, floors, per_node, max_degree=None):
        out = []
        for key in keys:
            touching = [(s, t, c) for s, t, c in edges if key in (s, t)]
            if max_degree is not None and len(touching) > max_degree:
                continue
            floor = floors[key] if isinstance(floors, dict) else floors
            kept = sorted((e for e in touching if e[2] >= floor), key=lambda e: -e[2])[:per_node]
            out += [
                {
                    "key": key,
                    "other": t if s == key else s,
                    "name": t if s == key else s,
                    "type": "other",
                    "rel": "associated_with",
                    "confidence": c,
                    "evidence_ids": [],
                    "forward": s == key,
                }
                for s, t, c in kept
            ]
        return out

    return neighbors


def test_admission_bar_keeps_exactly_the_best_nodes():
    """Skipping edges that cannot beat the current M-th best never changes which M nodes win."""
    import random

    rng = random.Random(5)
    for _ in range(30):
        edges = [
            (f"n{rng.randrange(40)}", f"n{rng.randrange(40)}", round(rng.uniform(0.3, 1.0), 3)) for _ in range(150)
        ]
        edges = [e for e in edges if e[0] != e[1]]
        neighbors = in_memory_neighbors(edges)
        full = traverse(neighbors, {"n0": ("n0", "other")}, Limits(tau=0.3, max_depth=3, max_nodes=1000, per_node=1000))
        capped = traverse(neighbors, {"n0": ("n0", "other")}, Limits(tau=0.3, max_depth=3, max_nodes=8, per_node=1000))
        assert all(r.depth <= 3 for r in full.values())
        best = sorted((round(r.score, 9) for r in full.values()), reverse=True)[:8]
        assert sorted((round(r.score, 9) for r in capped.values()), reverse=True) == best
