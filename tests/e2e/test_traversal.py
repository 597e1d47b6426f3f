"""Confidence propagation on a small hand-made graph with known path products."""

from __future__ import annotations

import pytest

from amg.tools.kg.records import EvidenceRecord, RelationRecord
from amg.tools.kg.traversal.traverse import Limits, question_links, traverse

# From metformin: t2dm 0.9; polyuria 0.9*0.8 (edge points into t2dm); nephropathy 0.9*0.6;
# dialysis 0.54*0.9 only at depth 3; lactic acidosis 0.4 is under tau=0.5.
EDGES = [
    ("Metformin", "T2DM", "treats", 0.9),
    ("Polyuria", "T2DM", "symptom_of", 0.8),
    ("T2DM", "Nephropathy", "risk_factor_for", 0.6),
    ("Nephropathy", "Dialysis", "associated_with", 0.9),
    ("Lactic acidosis", "Metformin", "adverse_effect_of", 0.4),
    ("Loner", "Faint friend", "associated_with", 0.35),
]


@pytest.fixture
def small_graph(store):
    store.upsert(
        evidence=[EvidenceRecord(id="pmid:7", kind="pubmed")],
        relations=[
            RelationRecord(s, t, type=ty, confidence=c, evidence_ids=["pmid:7"], score_raw=c * 10)
            for s, t, ty, c in EDGES
        ],
    )
    return store


def scores(reached):
    return {k: round(v.score, 4) for k, v in reached.items()}


def test_bfs_products_and_pruning(small_graph):
    reached = traverse(small_graph.neighbors, {"metformin": ("Metformin", "drug")}, Limits(tau=0.5, max_depth=2))
    assert scores(reached) == {"metformin": 1.0, "t2dm": 0.9, "polyuria": 0.72, "nephropathy": 0.54}
    # lactic acidosis (0.4) is below tau; dialysis would be 0.486 at depth 3
    assert reached["polyuria"].explain() == "Metformin -treats(0.90)-> T2DM -has_symptom(0.80)-> Polyuria = 0.72"


def test_both_directions_use_inverse_names(small_graph):
    reached = traverse(small_graph.neighbors, {"t2dm": ("T2DM", "disease")}, Limits(tau=0.5, max_depth=1))
    steps = {k: (v.path[0]["relation"], v.path[0]["forward"]) for k, v in reached.items() if v.path}
    assert steps == {
        "metformin": ("treated_by", False),
        "polyuria": ("has_symptom", False),
        "nephropathy": ("risk_factor_for", True),
    }


def test_dfs_finds_the_same_best_paths(small_graph):
    bfs = traverse(small_graph.neighbors, {"metformin": ("Metformin", "drug")}, Limits(tau=0.4, max_depth=3))
    dfs = traverse(
        small_graph.neighbors, {"metformin": ("Metformin", "drug")}, Limits(tau=0.4, max_depth=3, strategy="dfs")
    )
    assert scores(bfs) == scores(dfs)
    assert scores(dfs)["dialysis"] == 0.486


def test_max_nodes_keeps_the_strongest_with_their_ancestors(small_graph):
    reached = traverse(
        small_graph.neighbors, {"metformin": ("Metformin", "drug")}, Limits(tau=0.3, max_depth=3, max_nodes=3)
    )
    assert list(reached) == ["metformin", "t2dm", "polyuria"]


def test_isolated_seed_gets_weak_context_instead_of_nothing(small_graph):
    reached = traverse(small_graph.neighbors, {"loner": ("Loner", "other")}, Limits(tau=0.5, max_depth=2))
    assert reached["faint friend"].weak and reached["faint friend"].score == 0.35
    assert "[weak]" in reached["faint friend"].explain()


def test_hubs_are_expanded_as_seeds_only(small_graph):
    # T2DM has three relations: with hub_degree=2 it is reached from metformin but not expanded
    reached = traverse(small_graph.neighbors, {"metformin": ("Metformin", "drug")}, Limits(tau=0.5, hub_degree=2))
    assert set(reached) == {"metformin", "t2dm"}
    as_seed = traverse(small_graph.neighbors, {"t2dm": ("T2DM", "disease")}, Limits(tau=0.5, max_depth=1, hub_degree=2))
    assert set(as_seed) == {"t2dm", "metformin", "polyuria", "nephropathy"}


def test_edges_between_question_entities_are_kept(small_graph):
    """A traversal never re-enters a seed; the edge between two question entities comes back as a link."""
    seeds = {
        "metformin": ("Metformin", "drug"),
        "t2dm": ("T2DM", "disease"),
        "lactic acidosis": ("Lactic acidosis", "phenotype"),
    }
    reached = traverse(small_graph.neighbors, seeds, Limits(tau=0.5, max_depth=2))
    assert all(not any(s["target"] in ("T2DM", "Metformin") for s in r.path) for r in reached.values())
    links = question_links(small_graph.neighbors, seeds)
    assert [(x["source"], x["relation"], x["target"], x["confidence"]) for x in links] == [
        ("Metformin", "treats", "T2DM", 0.9),
        ("Lactic acidosis", "adverse_effect_of", "Metformin", 0.4),
    ]
    assert links[0]["evidence_ids"] == ["pmid:7"], "stored forward, once, with its evidence"
    assert question_links(small_graph.neighbors, {"metformin": ("Metformin", "drug")}) == []
