"""A research question answered from the papers the graph kept, when nothing is searched for it (offline mode, or
hybrid when the graph holds the claim): the papers its study findings rest on and those read for its entities
(kept even when no finding was read from them: agents/finding_reader/reader.py), ranked by how many of the
question's words each states in its title and the text kept with it, as a search ranks the index. The best is then
read at length as the best match fetched would be (agents/reasoner.py ``with_lead_text``): offline reads what
hybrid read, not only the one relation kept from it.

A paper stating too few of the question's words (two, and ``STATED_SHARE`` of them) is not one the question's
search would have found; with none left, the findings alone are read, as before."""

from __future__ import annotations

from amg.agents.claim_checker.from_graph import states, stemmed_words
from amg.agents.finding_reader.reader import FINDING_NAMES
from amg.tools.kg.pipeline_types import Subgraph
from amg.tools.kg.records import EvidenceProps
from amg.tools.kg.store.protocols import QAReads

PAPERS_READ = 50  # papers read for the question's entities that are weighed, newest first
STATED_SHARE = 0.5  # of the question's words a paper must state (and at least two)


def kept_papers(question: str, keys: list[str], *, subgraph: Subgraph, store: QAReads, k: int) -> list[EvidenceProps]:
    """The Evidence properties of the ``k`` papers that state most of ``question``'s words, best first,
    among those the subgraph's findings rest on and those read for ``keys``; withdrawn papers left out."""
    steps = [*subgraph["links"], *(s for n in subgraph["nodes"] for s in n["steps"])]
    ids = sorted({i for s in steps if s["relation"] in FINDING_NAMES for i in s["evidence_ids"]})
    held = {e["id"]: e for e in [*(store.evidence(ids) if ids else []), *store.papers_read(keys, PAPERS_READ)]}
    asked = stemmed_words(question)
    stated = []
    for paper in held.values():
        if paper.get("kind") != "pubmed" or paper.get("status") or not paper.get("snippet"):
            continue
        shared = len(asked & stemmed_words(f"{paper.get('title') or ''} {paper['snippet']}"))
        if states(shared, asked, STATED_SHARE):
            stated.append((shared, paper))
    return [paper for _, paper in sorted(stated, key=lambda pair: -pair[0])[:k]]
