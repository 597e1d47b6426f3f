"""The knowledge-coverage benchmark: which options the graph links to the question, on a hand-made graph."""

from __future__ import annotations

from benchmarks.coverage import option_links, tally

MARFAN = {"marfan syndrome": ("Marfan syndrome", "disease")}
EDGES = [  # (source key, target key, relation, confidence)
    ("fbn1", "marfan syndrome", "gene_associated_with", 1.0),
    ("col1a1", "fbn1", "associated_with", 0.9),  # between two options: says nothing about the question
    ("marfan syndrome", "ectopia lentis", "has_phenotype", 0.3),
]
NAMES = {"fbn1": "FBN1", "col1a1": "COL1A1", "ectopia lentis": "Ectopia lentis", "marfan syndrome": "Marfan syndrome"}


def neighbors(keys, floor, per_node, max_degree):
    """The store's neighbour reader over EDGES: both directions, at or above ``floor``."""
    found = []
    for source, target, relation, confidence in EDGES:
        for key, other, forward in ((source, target, True), (target, source, False)):
            if key in keys and confidence >= floor:
                found.append(
                    {
                        "key": key,
                        "other": other,
                        "name": NAMES[other],
                        "type": "other",
                        "rel": relation,
                        "confidence": confidence,
                        "evidence_ids": [],
                        "forward": forward,
                    }
                )
    return found


def seeds(*keys: str) -> dict:
    return {key: (NAMES[key], "other") for key in keys}


def test_an_option_is_linked_only_by_an_edge_to_the_question():
    options = {"A": seeds("fbn1"), "B": seeds("col1a1"), "C": seeds("ectopia lentis"), "D": seeds("marfan syndrome")}
    assert option_links(MARFAN, options, neighbors) == {
        "A": ["FBN1 gene_associated_with Marfan syndrome"],
        "C": ["Marfan syndrome has_phenotype Ectopia lentis"],
    }  # B is joined only to another option; D repeats the question's own entity


def test_tally_counts_the_linked_options_and_whether_the_lone_one_is_right():
    four = {letter: {} for letter in "ABCD"}
    rows = [
        ("A", MARFAN, {**four, "A": seeds("fbn1")}, {"A": ["FBN1 gene_associated_with Marfan syndrome"]}),
        ("B", MARFAN, {**four, "A": seeds("fbn1"), "C": seeds("ectopia lentis")}, {"A": ["..."], "C": ["..."]}),
        ("C", {}, four, {}),
    ]
    assert tally(rows) == {
        "questions": 3,
        "with_question_entities": 2,
        "with_option_entities": 2,
        "with_a_linked_option": 2,
        "gold_option_linked": 1,
        "options_linked": 3,
        "one_option_linked": 1,
        "one_option_linked_is_gold": 1,
        "one_option_linked_is_gold_by_chance": 0.25,
    }
