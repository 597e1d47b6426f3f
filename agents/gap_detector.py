"""Agent 2, KG lookup / gap detector: which question entities are missing, stale or thin, and whether the
graph holds an answer to a research question's claim.

A research question asks whether something holds ("Can medical students contribute to quality
assurance in day surgery?"): yes / no / maybe options, or an open question opening with a verb (or whose part
after a colon does: "Day surgery: can medical students contribute to quality assurance?").
Its entities are usually in the graph from the ontologies, which say nothing about the claim.
The claim is held when a study's finding resting on a paper (a PMID) joins two things the question names;
otherwise ``claim_gap`` sends the question itself to the literature (graphs/qa_graph.py).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from amg.tools.kg.records import iso_utc
from amg.tools.kg.schema import FINDINGS, normalize_key
from amg.tools.kg.store import QAStore
from amg.tools.kg.traversal import LINK_FLOOR

_ASKS_WHETHER = re.compile(r"^\s*(?:is|are|was|were|do|does|did|can|could|should|will|would|has|have|may|might|must|shall)\b",
                           re.IGNORECASE)  # fmt: skip
# a title's question after its colon: "Short-stay wards in children's hospitals: are they effective?" (not a case's
# last sentence: "A boy has ectopia lentis. Could this be Marfan syndrome?" stays with the differential and its map)
_TITLE_COLON = re.compile(r"[:;]")
_VERDICTS = {"yes", "no", "maybe"}


def is_research_question(question: str, options: dict[str, str] | None) -> bool:
    """Whether ``question`` asks if a claim holds: yes / no (/ maybe) options, or open and opening with a verb,
    or its part after a colon does ("Cushing's disease: can we predict the outcome of surgery?")."""
    if options:
        said = {text.strip().strip(".").lower() for text in options.values()}
        return {"yes", "no"} <= said <= _VERDICTS
    return bool(_ASKS_WHETHER.match(question) or _ASKS_WHETHER.match(_TITLE_COLON.split(question.strip())[-1]))


def question_kind(question: str, options: dict[str, str] | None) -> str:
    """"research" or "exam": whether ``question`` asks if a study's claim holds."""
    return "research" if is_research_question(question, options) else "exam"


def confidence_kind(question: str, options: dict[str, str] | None) -> str:
    """The kind of questions whose map calibrates this one's confidence (tools/llm/calibration.py): "exam" or
    "research" with options; without, "open", or "research-open" when it asks whether a claim holds (a
    yes / no answer on a study the model is surer of than of an open exam answer)."""
    kind = question_kind(question, options)
    return kind if options else ("research-open" if kind == "research" else "open")


def claim_held(question: str, keys: list[str], store: QAStore) -> bool:
    """Whether a study's finding resting on a paper joins a question entity to another thing the question names."""
    named = f" {normalize_key(question)} "
    return any(
        any(i.startswith("pmid:") for i in edge["evidence_ids"] or []) and f" {edge['other']} " in named
        for edge in (store.findings(keys, [r.name for r in FINDINGS], LINK_FLOOR) if keys else [])
    )


def detect_gaps(entities: list[dict], store: QAStore, tau: float, stale_days: int, min_relations: int,
                question: str = "", options: dict[str, str] | None = None) -> dict:  # fmt: skip
    """State update: ``gaps`` ([{key, name, status}]) for entities that need evidence, and ``claim_gap``."""
    keys = [e["key"] for e in entities]
    research = is_research_question(question, options)
    claim_gap = research and not claim_held(question, keys, store)
    if not entities:
        return {"gaps": [], "claim_gap": claim_gap}
    stale_before = iso_utc(datetime.now(timezone.utc) - timedelta(days=stale_days))
    reports = {r.key: r for r in store.gap_check(keys, tau, stale_before, min_relations)}
    present = [k for k in keys if reports[k].status != "missing"]
    if present:
        store.touch(present, "hits")  # question traffic steers the background refresh
    gaps = [
        {"key": e["key"], "name": e["name"], "type": e["type"], "status": reports[e["key"]].status}
        for e in entities
        if reports[e["key"]].status != "ok"
    ]
    return {"gaps": gaps, "claim_gap": claim_gap}
