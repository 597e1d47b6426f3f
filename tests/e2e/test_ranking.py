"""Paths are ranked against the question: relevance first, MMR for diversity, ties broken by it."""

from __future__ import annotations

from pathlib import Path

from amg.agents.reasoner import shown_paths
from amg.agents.traverser import TraversalSettings, traverse_subgraph
from amg.tools.kg.records import EvidenceRecord, RelationRecord
from amg.tools.vectors.embeddings import embed, model_path


def test_relevant_path_outranks_an_irrelevant_tie(store):
    """Two curated 1.00 edges tie on confidence; the one the question is about is shown first."""
    minilm = str(model_path("minilm", Path("/nonexistent")))
    store.upsert(
        evidence=[EvidenceRecord(id="vocab:x", kind="vocabulary")],
        relations=[
            RelationRecord(
                "Metformin", "Biguanide", type="is_a", confidence=1.0, evidence_ids=["vocab:x"], score_raw=10
            ),
            RelationRecord(
                "Diarrhea",
                "Metformin",
                type="adverse_effect_of",
                confidence=1.0,
                evidence_ids=["vocab:x"],
                score_raw=10,
            ),
            RelationRecord(
                "Metformin", "Guanidines", type="is_a", confidence=1.0, evidence_ids=["vocab:x"], score_raw=10
            ),
        ],
    )
    entities = [{"key": "metformin", "name": "metformin", "type": "drug"}]
    query = "What is the most common gastrointestinal side effect of metformin?"
    ranked = traverse_subgraph(
        entities,
        store,
        settings=TraversalSettings(max_depth=1),
        question="",
        query=query,
        embed=lambda t: embed(minilm, t),
    )
    first = min((n for n in ranked["subgraph"]["nodes"] if n["depth"]), key=lambda n: n["rank"])
    assert first["name"] == "Diarrhea"
    plain = traverse_subgraph(
        entities, store, settings=TraversalSettings(max_depth=1, path_ranking="confidence"), question="", query=query
    )
    assert {n["rank"] for n in plain["subgraph"]["nodes"] if n["depth"]} == {0, 1, 2}


def test_a_direct_fact_stays_in_the_subgraph_when_curated_paths_fill_the_node_budget(store):
    """Ten 1.00 members of the drug's class outscore the 0.68 adverse effect; a budget of 5 used to drop it.
    A curated one is kept for the picture, hidden from the reasoner; one a model read from evidence is ranked
    with the budget's paths (the demo's offline follow-up never saw "Metformin has adverse effect Diarrhea")."""
    minilm = str(model_path("minilm", Path("/nonexistent")))
    members = [
        RelationRecord(
            f"Biguanide member {i}",
            "Biguanide",
            type="is_a",
            confidence=1.0,
            evidence_ids=["vocab:x"],
            score_raw=10,
            origin="vocabulary:x",
        )
        for i in range(10)
    ]
    read = "The most common adverse effects of metformin are diarrhea and nausea."
    store.upsert(
        evidence=[
            EvidenceRecord(id="vocab:x", kind="vocabulary"),
            EvidenceRecord(id="textbook:t.md::0", kind="textbook", snippet=read),
        ],
        relations=[
            RelationRecord(
                "Metformin",
                "Biguanide",
                type="is_a",
                confidence=1.0,
                evidence_ids=["vocab:x"],
                score_raw=10,
                origin="vocabulary:x",
            ),
            *members,
            RelationRecord(
                "Diarrhea",
                "Metformin",
                type="adverse_effect_of",
                confidence=0.68,
                evidence_ids=["vocab:x"],
                score_raw=7,
                origin="vocabulary:x",
            ),
            RelationRecord(
                "Nausea",
                "Metformin",
                type="adverse_effect_of",
                confidence=0.6,
                evidence_ids=["textbook:t.md::0"],
                score_raw=8,
                description=read,
                origin="textbook",
            ),
        ],
    )
    entities = [{"key": "metformin", "name": "metformin", "type": "drug"}]
    query = "What is the most common side effect of metformin?"
    nodes = traverse_subgraph(
        entities,
        store,
        settings=TraversalSettings(max_nodes=5),
        question="",
        query=query,
        embed=lambda t: embed(minilm, t),
    )["subgraph"]["nodes"]
    kept = next(n for n in nodes if n["name"] == "Diarrhea")
    assert kept["hidden"] and kept["steps"][0]["relation"] == "has_adverse_effect"
    shown = [n["name"] for ps in shown_paths(nodes).values() for n in ps]
    assert len(nodes) == 7 and "Diarrhea" not in shown and "Nausea" in shown
    assert next(n for n in nodes if n["name"] == "Nausea")["steps"][0]["description"] == read


def test_paths_unlike_the_question_are_hidden_from_the_reasoner(store):
    """Under ``min_relevance`` a path stays in the subgraph (marked hidden) but is not among the shown paths."""
    minilm = str(model_path("minilm", Path("/nonexistent")))
    store.upsert(
        evidence=[EvidenceRecord(id="vocab:x", kind="vocabulary")],
        relations=[
            RelationRecord(
                "Diarrhea",
                "Metformin",
                type="adverse_effect_of",
                confidence=1.0,
                evidence_ids=["vocab:x"],
                score_raw=10,
            ),
            RelationRecord(
                "Dimethylbiguanide hydrochloride salt",
                "Metformin",
                type="part_of",
                confidence=1.0,
                evidence_ids=["vocab:x"],
                score_raw=10,
            ),
        ],
    )
    entities = [{"key": "metformin", "name": "metformin", "type": "drug"}]
    query = "What is the most common gastrointestinal side effect of metformin? A. Diarrhea B. Cough"
    for threshold, shown in ((0.0, {"Diarrhea", "Dimethylbiguanide hydrochloride salt"}), (0.5, {"Diarrhea"})):
        found = traverse_subgraph(
            entities,
            store,
            settings=TraversalSettings(max_depth=1, min_path_relevance=threshold),
            question="",
            query=query,
            embed=lambda t: embed(minilm, t),
        )["subgraph"]["nodes"]
        assert {n["name"] for n in found if n["depth"]} == {"Diarrhea", "Dimethylbiguanide hydrochloride salt"}
        assert {n["name"] for paths in shown_paths(found).values() for n in paths} == shown, [
            (n["name"], n["relevance"]) for n in found if n["depth"]
        ]
