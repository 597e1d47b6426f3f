"""Paths are ranked against the question: relevance first, MMR for diversity, ties broken by it."""

from __future__ import annotations

import pytest

from amg.agents.reasoner import MAX_PATHS, shown_paths, spoken
from amg.tools.kg.pipeline_types import GraphPath, Step
from amg.tools.kg.traversal.ranking import order, verbalise


def test_mmr_prefers_relevant_then_different():
    query = [1.0, 0.0, 0.0]
    paths = [[0.9, 0.1, 0.0], [0.9, 0.11, 0.0], [0.6, 0.0, 0.8], [0.0, 1.0, 0.0]]
    assert order(query, paths, confidences=[1.0] * 4, how="similarity")[:2] == [0, 1]
    assert order(query, paths, confidences=[1.0] * 4, how="mmr")[:2] == [0, 2], "the near-duplicate of the first waits"
    assert order(query, paths, confidences=[0.5, 0.6, 0.7, 0.9], how="confidence") == [3, 2, 1, 0]
    with pytest.raises(ValueError):
        order(query, paths, confidences=[1.0] * 4, how="random")


def test_verbalised_path_reads_as_words():
    steps = [
        {"source": "Metformin", "relation": "treats", "target": "T2DM"},
        {"source": "T2DM", "relation": "has_symptom", "target": "Polyuria"},
    ]
    assert verbalise(steps) == "Metformin treats T2DM has symptom Polyuria"


def path(
    seed: str, target: str, rank: int, relevance: float = 0.5, score: float = 1.0, steps: list[Step] | None = None
) -> GraphPath:
    steps = steps or [
        Step(
            source=seed,
            relation="has_subtype",
            target=target,
            confidence=1.0,
            evidence_ids=[],
            forward=True,
            description="",
        )
    ]
    return GraphPath(
        key=target.lower(),
        name=target,
        type="other",
        description=None,
        score=score,
        depth=len(steps),
        weak=False,
        seed=seed,
        seed_key=seed.lower(),
        path="",
        steps=steps,
        rank=rank,
        hidden=False,
        relevance=relevance,
    )


def test_the_path_budget_goes_round_the_entities_best_paths_first():
    nodes = [
        path(seed, f"{seed} {i}", i, relevance=0.1 * i) for seed in ("Blood", "Kidney", "Nephron") for i in range(5)
    ]
    shown = shown_paths(nodes)
    assert sum(map(len, shown.values())) == MAX_PATHS == 10
    assert {k: [n["rank"] for n in v] for k, v in shown.items()} == {
        "blood": [0, 1, 2, 3],
        "kidney": [0, 1, 2],
        "nephron": [0, 1, 2],
    }, "rank 3 goes to the most relevant entity"


def test_the_paths_shown_are_listed_strongest_first():
    """Chosen by relevance, listed by confidence: listed first, the 0.51 hypoglycemia was the 1.5B's answer."""
    from amg.agents.reasoner import entity_contexts

    nodes = [
        path("Metformin", name, rank, score=score)
        for rank, (name, score) in enumerate([("Hypoglycemia", 0.51), ("Agmatine", 1.0), ("Diarrhea", 0.73)])
    ]
    nodes.append(
        GraphPath(
            key="metformin",
            name="Metformin",
            type="drug",
            description=None,
            score=1.0,
            depth=0,
            weak=False,
            seed="Metformin",
            seed_key="metformin",
            path="",
            steps=[],
            rank=0,
            hidden=False,
        )
    )
    text = entity_contexts([{"key": "metformin", "name": "Metformin", "type": "drug"}], nodes, evidence_index=[])[
        "Metformin"
    ]
    assert [line.split()[-2] for line in text.splitlines()[1:]] == ["Agmatine", "Diarrhea", "Hypoglycemia"]


def test_a_path_is_read_as_words_with_its_confidence():
    steps = [
        Step(
            source="Metformin",
            relation="treats",
            target="T2DM",
            confidence=0.9,
            evidence_ids=[],
            forward=True,
            description="",
        ),
        Step(
            source="T2DM",
            relation="has_symptom",
            target="Polyuria",
            confidence=0.8,
            evidence_ids=[],
            forward=True,
            description="",
        ),
    ]
    node = path("Metformin", "Polyuria", 0, score=0.72, steps=steps)
    assert spoken(node) == "Metformin treats T2DM has symptom Polyuria (0.72)"
