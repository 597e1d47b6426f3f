"""A paper PubMed retracted or deleted: the answer may cite it, marked so, but its confidence never rests on it;
the reasoner, the reply, the evidence page and the export say so; a revision is checked against what rests on it."""

from __future__ import annotations

import pytest

from amg.agents.answer_synthesizer.synthesizer import WITHDRAWN_ONLY, synthesize
from amg.agents.reasoner import evidence_block, number_evidence
from amg.cli.answer_format import json_result
from amg.cli.evidence_picture import render, to_dot
from amg.graphs.literature_reread import still_stated
from amg.graphs.reply import chat_reply
from amg.testing.fakes import chat
from amg.tools.kg.pipeline_types import Asked, Found
from amg.tools.kg.transfer.import_rules import Rejected, check_record

QUESTION = "Can medical students contribute to quality assurance programmes in day surgery?"
VERDICTS = {"A": "yes", "B": "no", "C": "maybe"}
SENTENCE = "Medical students can contribute to quality assurance programmes in day surgery."
PAPER = {
    "n": 1,
    "id": "pmid:10354335",
    "kind": "pubmed",
    "pmid": "10354335",
    "title": "Can medical students contribute?",
    "snippet": SENTENCE,
    "url": "https://pubmed.ncbi.nlm.nih.gov/10354335/",
}
ENTITIES = [{"key": "medical student", "name": "medical students", "type": "other"}]


def answered(paper: dict) -> dict:
    llm = chat(text={"content": "Answer: yes\nConfidence: 0.8\nCitations: [1]"})
    return synthesize(
        Asked(QUESTION, VERDICTS, entities=ENTITIES),
        Found([], [], evidence_index=[paper], fetched_ids=[paper["id"]]),
        llm=llm,
        rests_on=[1],
    )


def test_the_answer_cites_a_retracted_paper_as_such_and_does_not_rest_on_it():
    standing = answered(PAPER)
    assert standing["confidence_basis"]["support"] == 1.0 and "rests_on" not in standing["confidence_basis"]
    withdrawn = answered({**PAPER, "status": "retracted"})
    assert [(c["pmid"], c["status"]) for c in withdrawn["citations"]] == [("10354335", "retracted")]
    basis = withdrawn["confidence_basis"]
    assert basis["support"] == 0.0 and basis["withdrawn_citations"] == [
        {"n": 1, "id": "pmid:10354335", "status": "retracted"}
    ]
    assert basis["rests_on"] == WITHDRAWN_ONLY.format(papers="PMID 10354335 retracted")
    assert withdrawn["confidence"] < standing["confidence"], "the confidence no longer rests on the paper"
    reply = chat_reply({**withdrawn, "answer": "A. yes"})
    assert "[1] RETRACTED: Can medical students contribute? (PMID 10354335)" in reply
    assert "Rests on the model's own knowledge: the paper it cites was withdrawn (PMID 10354335 retracted)" in reply
    assert json_result(withdrawn)["citations"][0]["status"] == "retracted"
    assert "status" not in json_result(standing)["citations"][0]


def test_the_reasoner_is_told_the_paper_was_retracted():
    shown = evidence_block([{**PAPER, "status": "retracted", "year": 1999}])
    assert "[1] (pubmed, 1999, RETRACTED: do not rely on it) Can medical students contribute?" in shown
    assert "RETRACTED" not in evidence_block([PAPER])


class Graph:
    """The graph's Evidence nodes, as ``store.evidence`` returns them."""

    def __init__(self, *nodes):
        self.nodes = {n["id"]: n for n in nodes}

    def evidence(self, ids):
        return [self.nodes[i] for i in ids if i in self.nodes]


def test_a_status_comes_from_the_graph_or_from_the_paper_fetched():
    fetched = {k: v for k, v in PAPER.items() if k != "n"}
    marked_in_graph = number_evidence([], [fetched], store=Graph({**fetched, "status": "deleted"}))
    assert marked_in_graph[0]["status"] == "deleted"
    marked_in_record = number_evidence([], [{**fetched, "status": "retracted"}], store=Graph(fetched))
    assert marked_in_record[0]["status"] == "retracted", "the graph not told yet: the record still says so"
    assert "status" not in number_evidence([], [fetched], store=Graph(fetched))[0]


def test_the_evidence_page_marks_the_paper_and_the_edges_resting_on_it():
    step = {
        "source": "medical students",
        "relation": "improves",
        "target": "quality assurance programmes",
        "confidence": 0.0,
        "evidence_ids": ["pmid:10354335"],
        "forward": True,
        "description": SENTENCE,
    }
    result = {
        "question": QUESTION,
        "answer": "A. yes",
        "evidence_index": [{**PAPER, "status": "retracted"}],
        "citations": [{**PAPER, "evidence_id": PAPER["id"], "quote": SENTENCE, "status": "retracted"}],
        "subgraph": {"nodes": [], "links": [step], "seeds": []},
    }
    dot = to_dot(result, [[step]])
    assert 'improves 0.00 (retracted)" color="#c53030"' in dot and "style=dashed" in dot
    assert "<b class='withdrawn'>RETRACTED</b> Can medical students contribute?" in render(result)
    assert "(retracted)" not in to_dot({**result, "evidence_index": [PAPER]}, [[step]])


def test_a_revision_still_states_a_finding_whose_sentence_it_keeps():
    finding = {
        "description": f"{SENTENCE} [studied in: patients after day-case operations]",
        "source": "medical students",
        "target": "quality assurance programmes",
        "source_aliases": [],
        "target_aliases": [],
    }
    assert still_stated(finding, f"Title.\nCONCLUSIONS: {SENTENCE}\nBACKGROUND: audits.")
    assert not still_stated(finding, "CONCLUSIONS: Medical students could not contribute.")
    bare = {**finding, "description": ""}
    assert still_stated(bare, "Medical students ran the quality assurance programmes.")
    assert not still_stated(bare, "Nurses ran the quality assurance programmes.")


def test_an_export_with_a_withdrawn_paper_imports_back():
    row = {
        "kind": "evidence",
        "id": "pmid:1",
        "props": {
            "id": "pmid:1",
            "kind": "pubmed",
            "status": "retracted",
            "status_note": "PMID 1 was retracted",
            "status_at": "2026-01-01T00:00:00.000000Z",
            "reread_done_at": "2026-01-02T00:00:00.000000Z",
        },
    }
    assert check_record(row)["props"]["status"] == "retracted"
    with pytest.raises(Rejected, match="status"):
        check_record({**row, "props": {**row["props"], "status": "fine"}})
