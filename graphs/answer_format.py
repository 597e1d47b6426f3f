"""Human-readable and JSON renderings of a QA result."""

from __future__ import annotations

DISCLAIMER = "AMG is a research tool: this is not medical advice."


def chat_reply(result: dict) -> str:
    """The answer as shown in chat and on the terminal."""
    lines = [*(f"Note: {n}" for n in result.get("notices", [])), result.get("answer", "")]
    lines.append(f"Confidence: {result.get('confidence', 0.0):.2f}")
    if result.get("rationale"):
        lines.append(f"Why: {result['rationale']}")
    for c in result.get("citations", []):
        where = f"PMID {c['pmid']}" if c.get("pmid") else (c.get("url") or c.get("id"))
        year = f", {c['year']}" if c.get("year") else ""
        lines.append(f"[{c['n']}] {c.get('title') or c['id']} ({where}{year})")
    for d in result.get("degradations", []):
        lines.append(f"(degraded: {d})")
    lines.append(DISCLAIMER)
    return "\n".join(line for line in lines if line)


def json_result(result: dict) -> dict:
    """The ``amg ask --json`` contract."""
    nodes = result.get("subgraph", {}).get("nodes", [])
    return {
        "answer": result.get("answer", ""),
        "option": result.get("option"),
        "confidence": result.get("confidence", 0.0),
        "citations": [
            {k: c.get(k) for k in ("n", "evidence_id", "kind", "pmid", "doi", "title", "year", "url")}
            for c in result.get("citations", [])
        ],
        "entities": result.get("entities", []),
        "paths": [{"path": n["path"], "score": n["score"], "weak": n["weak"]} for n in nodes if n["depth"] > 0],
        "reasoning": result.get("reasoning", {}),
        "notices": result.get("notices", []),
        "trace": {
            "timings_ms": result.get("timings_ms", {}),
            "llm_calls": result.get("llm_calls", 0),
            "tokens": result.get("tokens", 0),
            "degradations": result.get("degradations", []),
        },
    }
