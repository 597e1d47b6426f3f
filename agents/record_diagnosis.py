"""A stored patient diagnosed (`amg ask --record ID`): the answer written from the differential of both halves, with
no model call and no search, so nothing of the record leaves the machine.

The answer names the leading diagnosis at three levels (ICD-10 chapter, block, disease) and the others worth
considering; the similar patients, by record id, are listed under it (graphs/reply.py). It cites the papers behind
the leader's annotations (HPO's references), and its confidence is the leader's probability. The follow-up question
that best splits the leaders is shown under it when the leader is unsure.
"""

from __future__ import annotations

from amg.tools.kg.pipeline_types import CandidateDiagnosis, Citation, SimilarPatient
from amg.tools.kg.store.protocols import QAReads

OTHERS = 2  # other candidates named beside the leader
CITED = 3  # papers cited behind the leader's annotations


def case_sentence(age: str, sex: str, *, present: list[str], absent: list[str]) -> str:
    """The record told as a case, for the model and the reader ("A male patient, 40 years, with A, B and C; no D.")."""
    who = " ".join(x for x in (sex, "patient") if x)
    said = f"A {who}" + (f", {age}," if age else "") + (f" with {_listed(present)}" if present else "")
    return said + (f"; no {_listed(absent, 'or')}" if absent else "") + ". What is the most likely diagnosis?"


def _listed(items: list[str], last: str = "and") -> str:
    items = [i.lower() for i in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {last} " + items[-1]


def record_answer(
    differential: list[CandidateDiagnosis], similar: list[SimilarPatient], *, store: QAReads
) -> dict[str, object]:
    """State update for a stored patient's case: ``answer``, ``confidence``, ``citations``, ``confidence_basis``."""
    if not differential:
        answer = (
            "No diagnosis: none of this patient's findings is annotated to a disease the graph or your records know."
        )
        return {"answer": answer, "confidence": 0.0, "citations": [], "confidence_basis": {"rests_on": "nothing"}}
    leader, others = differential[0], differential[1 : 1 + OTHERS]
    levels = leader.get("levels")
    where = "; ".join(x for x in (levels["subcategory"], levels["category"]) if x) if levels else ""
    lines = [
        f"Most likely: {leader['name']} ({leader['probability']:.2f})" + (f", under {where}" if where else "") + "."
    ]
    if others:
        lines.append("Also consider: " + "; ".join(f"{c['name']} ({c['probability']:.2f})" for c in others) + ".")
    if leader.get("present"):
        lines.append(f"It explains: {', '.join(leader['present'])}.")
    if similar:
        lines.append(
            "Similar patients in your records: "
            + "; ".join(
                f"{p['id']} ({', '.join(p['diagnoses']) or 'no diagnosis'}, {p['similarity']:.2f})" for p in similar
            )
            + "."
        )
    ids = list(leader.get("evidence_ids") or [])[:CITED]
    rows = {row["id"]: row for row in store.evidence(ids)} if ids else {}
    citations: list[Citation] = []
    for n, i in enumerate(ids, 1):
        row = rows.get(i)
        pmid = (row.get("pmid") if row else None) or (i.removeprefix("pmid:") if i.startswith("pmid:") else None)
        citations.append(
            Citation(
                n=n,
                id=i,
                evidence_id=i,
                kind=row["kind"] if row else "pubmed",
                pmid=pmid,
                doi=row.get("doi") if row else None,
                title=(row.get("title") if row else None) or i,
                year=row.get("year") if row else None,
                url=row.get("url") if row else None,
                quote=f"{leader['name']}: " + ", ".join(leader.get("present") or []),
            )
        )
    basis = {
        "rests_on": "the differential of the graph's disease annotations and your stored patients (no model call)",
        "leader_probability": leader["probability"],
        "similar_patients": [p["id"] for p in similar],
    }
    return {
        "answer": " ".join(lines),
        "confidence": leader["probability"],
        "citations": citations,
        "confidence_basis": basis,
    }
