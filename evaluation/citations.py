"""Figures for questions that come from a paper (items carrying gold ``pmids``): did the loop find the paper,
does the answer cite it, and does it cite only what it rests on.

Per result row: ``gold_pmids``, ``fetched_pmids`` (the evidence fetched or read for the question),
``cited_pmids`` (the papers the answer cites). ``citation_precision`` is over the answers that cite a paper:
an answer that cites nothing is counted by ``citation_hit``, not here.

Citation relevance, for any kg answer (``quote_check``): the share of cited items whose quote names the answer's
key entity (agents/answer_synthesizer/quotes.py). "model" counts what the model cited, an item dropped for having no
such
sentence counting as not naming it (what was printed before quotes); "printed" counts the citations printed.
"""

from __future__ import annotations

import statistics

from amg.agents.answer_synthesizer.quotes import key_entities, names_key, with_aliases
from amg.tools.kg.store.protocols import QAReads


def gold_recall(rows: list[dict]) -> float:
    """Share of questions with a gold PMID among the evidence fetched."""
    return _share([bool(set(r["gold_pmids"]) & set(r.get("fetched_pmids") or [])) for r in rows])


def citation_hit(rows: list[dict]) -> float:
    """Share of answers citing a gold PMID."""
    return _share([bool(set(r["gold_pmids"]) & set(r.get("cited_pmids") or [])) for r in rows])


def citation_precision(rows: list[dict]) -> float | None:
    """Mean share of gold papers among each citing answer's cited papers (None when no answer cites one)."""
    shares = [
        len(set(r["gold_pmids"]) & set(r["cited_pmids"])) / len(set(r["cited_pmids"]))
        for r in rows
        if r.get("cited_pmids")
    ]
    return statistics.mean(shares) if shares else None


def literature_figures(rows: list[dict]) -> dict | None:
    """The figures above for the rows that carry gold PMIDs (None when none do), with the citing share."""
    judged = [r for r in rows if r.get("gold_pmids")]
    if not judged:
        return None
    return {
        "n": len(judged),
        "gold_recall": gold_recall(judged),
        "citation_hit": citation_hit(judged),
        "citation_precision": citation_precision(judged),
        "citing_share": _share([bool(r.get("cited_pmids")) for r in judged]),
    }


def quote_check(result: dict, store: QAReads) -> dict:
    """Per answer: whether each printed citation's quote names the answer's key entity, whether the printed
    citations are the model's own (not the studies read, added when it cited none), and how many were dropped."""
    nodes = (result.get("subgraph") or {}).get("nodes", [])
    keys = key_entities(result.get("answer", ""), with_aliases(result.get("entities", []), store)[0], nodes)
    basis = result.get("confidence_basis") or {}
    return {
        "naming": [names_key(c.get("quote") or "", keys) for c in result.get("citations", [])],
        "model_cited": "cited" not in basis,
        "dropped": len(basis.get("dropped_citations", [])),
    }


def relevance_figures(rows: list[dict]) -> dict | None:
    """Citation relevance over the rows' ``quote_check``: of what the model cited, and of what was printed."""
    checks = [r["quote_check"] for r in rows if r.get("quote_check")]
    printed = [ok for c in checks for ok in c["naming"]]
    model = [ok for c in checks if c["model_cited"] for ok in c["naming"]] + [False] * sum(c["dropped"] for c in checks)
    if not printed and not model:
        return None
    return {
        "model_cited_items": len(model),
        "model_cited_relevance": _share(model),
        "printed_items": len(printed),
        "printed_relevance": _share(printed),
        "answers_citing_nothing": sum(not c["naming"] for c in checks),
    }


def _share(flags: list[bool]) -> float:
    return sum(flags) / len(flags) if flags else 0.0
