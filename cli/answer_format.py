"""The `amg ask --json` and `amg check --json` renderings of a QA result (below the commands that print them)."""

from __future__ import annotations

CITATION_FIELDS = ("n", "evidence_id", "kind", "pmid", "doi", "title", "year", "url", "quote")


def json_result(result: dict) -> dict:
    """The ``amg ask --json`` contract; a claim's adds ``claim_check``, the ``amg check --json`` object."""
    nodes = result.get("subgraph", {}).get("nodes", [])
    checked = {"claim_check": claim_json(result)} if result.get("kind") == "claim" else {}
    return {
        **checked,
        "answer": result.get("answer", ""),
        "option": result.get("option"),
        "confidence": result.get("confidence", 0.0),
        "confidence_basis": result.get("confidence_basis", {}),
        # "status" only for a paper PubMed withdrew: "retracted" or "deleted" (the answer does not rest on it)
        "citations": [
            {**{k: c.get(k) for k in CITATION_FIELDS}, **({"status": c["status"]} if c.get("status") else {})}
            for c in result.get("citations", [])
        ],
        "entities": result.get("entities", []),
        "glossary": result.get("glossary", []),
        "differential": result.get("differential", []),
        "follow_up": result.get("follow_up", []),
        "similar": result.get("similar", []),
        **({"records_differential": result["records_differential"]} if result.get("records_differential") else {}),
        "paths": [{"path": n["path"], "score": n["score"], "weak": n["weak"]} for n in nodes if n["depth"] > 0],
        "reasoning": result.get("reasoning", {}),
        "notices": result.get("notices", []),
        "learned": [
            {
                "source": r["source"],
                "relation": r["type"],
                "target": r["target"],
                "confidence": r["confidence"],
                "evidence_ids": r["evidence_ids"],
                "pmids": pmids(r["evidence_ids"]),
                **({"finding": r["description"]} if r.get("description") else {}),
            }
            for r in result.get("new_relations", [])
        ],
        "trace": {
            "timings_ms": result.get("timings_ms", {}),
            "llm_calls": result.get("llm_calls", 0),
            "tokens": result.get("tokens", 0),
            "degradations": result.get("degradations", []),
            "learning_faults": result.get("learning_faults", 0),
        },
    }


def pmids(evidence_ids: list[str]) -> list[str]:
    """The PubMed ids among evidence ids ("pmid:10354335" -> "10354335")."""
    return list(dict.fromkeys(i.removeprefix("pmid:") for i in evidence_ids if i.startswith("pmid:")))


def claim_json(result: dict) -> dict:
    """The ``amg check --json`` contract."""
    verdict = result.get("verdict") or {}
    return {
        "claim": result.get("claim", ""),
        "verdict": verdict.get("verdict"),
        "confidence": verdict.get("confidence", 0.0),
        "calibrated": False,
        "summary": verdict.get("summary", ""),
        "counts": verdict.get("counts", {}),
        "papers": [
            {
                "id": p["id"],
                "title": p["title"],
                "url": p.get("url"),
                "year": p.get("year"),
                "source": p["source"],
                "stance": p["stance"],
                "probabilities": p.get("probabilities", {}),  # over supports / contradicts / neither
                "model_probabilities": p.get("said", {}),  # P(yes): the sentences show the claim, its opposite
                "opposite": p.get("opposite"),
                "sentences": p.get("rationale", []),
                "quotes": [
                    {"n": s["n"], "text": s["text"]} for s in p["sentences"] if s["n"] in (p.get("rationale") or [])
                ],
                "relevance": p.get("relevance"),
                "why": p.get("why"),
            }
            for p in result.get("papers", [])
        ],
        "learned": [
            {
                "source": r["source"],
                "relation": r["type"],
                "target": r["target"],
                "confidence": r["confidence"],
                "papers": r["evidence_ids"],
                "sentences": [q["n"] for q in r.get("quotes") or []],
            }
            for r in result.get("new_relations", [])
        ],
        "notices": result.get("notices", []),
        "trace": {
            "timings_ms": result.get("timings_ms", {}),
            "llm_calls": result.get("llm_calls", 0),
            "tokens": result.get("tokens", 0),
            "degradations": result.get("degradations", []),
        },
    }
