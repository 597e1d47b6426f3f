"""The evidence picture as a person sees it: rendered by headless Chromium at 1280x800."""

from __future__ import annotations

import re

from amg.cli.evidence_picture import rested_on, to_dot
from amg.tools.kg.pipeline_types import GraphPath, Step


def step(source, relation, target, confidence, evidence, forward=True):
    return Step(
        source=source,
        relation=relation,
        target=target,
        confidence=confidence,
        evidence_ids=evidence,
        forward=forward,
        description="",
    )


def node(key, name, depth, seed_key, steps, rank=0, score=1.0):
    return GraphPath(
        key=key,
        name=name,
        type="other",
        description=None,
        score=score,
        depth=depth,
        weak=False,
        seed="Metformin",
        seed_key=seed_key,
        path="",
        steps=steps,
        rank=rank,
        hidden=False,
    )


RESULT = {
    "question": "Which drug is first-line for type 2 diabetes mellitus, and what is its most common side effect?",
    "answer": "B. Metformin; diarrhea",
    "option": "B",
    "options": {"A": "Insulin", "B": "Metformin"},
    "confidence": 0.71,
    "citations": [
        {"n": 1, "evidence_id": "pmid:31000001", "pmid": "31000001", "title": "Metformin first line", "year": 2021}
    ],
    "glossary": [
        {
            "term": "Diarrhea",
            "key": "diarrhea",
            "definition": "Abnormally increased frequency of loose stools.",
            "source": "HPO",
            "ids": ["HP:0002014"],
        }
    ],
    "subgraph": {
        "links": [step("Metformin", "treats", "Type 2 diabetes mellitus", 0.9, ["pmid:31000001"])],
        "nodes": [
            node("metformin", "Metformin", 0, "metformin", []),
            node("t2dm", "Type 2 diabetes mellitus", 0, "t2dm", []),
            node(
                "diarrhea",
                "Diarrhea",
                1,
                "metformin",
                [step("Metformin", "has_adverse_effect", "Diarrhea", 0.8, ["vocab:x"], forward=False)],
            ),
            node(
                "biguanide",
                "Biguanide",
                1,
                "metformin",
                [step("Metformin", "is_a", "Biguanide", 1.0, ["vocab:chebi"])],
                1,
            ),
            node(
                "hairball",
                "An unrelated neighbour with a long name",
                1,
                "metformin",
                [step("Metformin", "associated_with", "An unrelated neighbour with a long name", 0.6, ["pmid:9"])],
                4,
            ),
        ],
    },
}


def test_best_ranked_paths_are_drawn_only_when_the_answer_names_nothing_in_the_graph():
    drawn = {s["target"] for steps in rested_on({**RESULT, "answer": "B."}) for s in steps}
    assert {"Diarrhea", "Biguanide"} <= drawn and not any(t.startswith("An unrelated") for t in drawn)


def test_paths_behind_cited_evidence_are_drawn_even_when_ranked_low():
    cited = {**RESULT, "citations": [{"n": 1, "evidence_id": "pmid:9"}]}
    assert any(s[0]["target"].startswith("An unrelated") for s in rested_on(cited))


def test_the_path_to_what_the_answer_names_is_drawn_even_when_ranked_low():
    named = {**RESULT, "answer": "An unrelated neighbour with a long name, says the model."}
    assert any(s[0]["target"].startswith("An unrelated") for s in rested_on(named))
    assert not any(s[0]["target"].startswith("An unrelated") for s in rested_on(RESULT))


def test_what_the_cited_evidence_taught_the_graph_is_drawn_when_the_answer_names_it():
    learned = [
        {
            "source": "Diarrhea",
            "type": "adverse_effect_of",
            "target": "Metformin",
            "confidence": 0.68,
            "evidence_ids": ["textbook:endo::0"],
        },
        {
            "source": "Nausea",
            "type": "adverse_effect_of",
            "target": "Glipizide",
            "confidence": 0.68,
            "evidence_ids": ["textbook:endo::0"],
        },
        {
            "source": "Metformin",
            "type": "interacts_with",
            "target": "Alcohol",
            "confidence": 0.68,
            "evidence_ids": ["pmid:5"],
        },
    ]
    cited = {
        **RESULT,
        "answer": "Metformin; its most common side effect is diarrhea.",
        "new_relations": learned,
        "subgraph": {"links": [], "nodes": []},
        "citations": [{"n": 1, "evidence_id": "textbook:endo::0"}],
    }
    drawn = [(s["source"], s["relation"], s["target"]) for steps in rested_on(cited) for s in steps]
    assert drawn == [("Diarrhea", "adverse_effect_of", "Metformin")], "cited and named; not unnamed, not uncited"
    on_a_path = {**cited, "subgraph": RESULT["subgraph"]}
    assert ("Diarrhea", "adverse_effect_of", "Metformin") not in [
        (s["source"], s["relation"], s["target"]) for steps in rested_on(on_a_path) for s in steps
    ], "drawn once"


def test_names_that_differ_only_in_case_are_one_node():
    learned = {
        **RESULT,
        "answer": "Metformin",
        "subgraph": {
            "links": [],
            "nodes": [node("type 2 diabetes mellitus", "Type 2 diabetes mellitus", 0, "type 2 diabetes mellitus", [])],
        },
    }
    dot = to_dot(
        learned,
        [
            [step("Type 2 diabetes mellitus", "is_a", "Diabetes mellitus", 1.0, ["vocab:mondo:1"])],
            [step("metformin", "treats", "type 2 diabetes mellitus", 0.73, ["textbook:endo::0"])],
        ],
    )
    nodes = re.findall(r'^(n\d+) \[label="([^"]*)"(.*)$', dot, re.MULTILINE)
    type2 = [(label, rest) for _, label, rest in nodes if "type 2" in label.lower()]
    assert len(nodes) == 3 and len(type2) == 1, nodes
    assert type2[0][0].startswith("Type 2") and "#fefcbf" in type2[0][1], (
        "named as first drawn, still the question's entity"
    )
