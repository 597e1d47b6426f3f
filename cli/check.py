"""``amg check "CLAIM"``: the claim checked against the literature, each paper's stance with the sentences that
settle it, the verdict across papers; ``--json`` lists each paper's stance and sentence numbers."""

from __future__ import annotations

import json

from amg.cli.qa import answered_first, learned_lines
from amg.cli.terminal import json_printable, printable
from amg.graphs.context import Context
from amg.graphs.question import claim_to_check
from amg.graphs.resources import resources_for


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


def run(args, context: Context) -> int:
    from amg.graphs.qa_graph import graph

    problem = claim_to_check(args.claim, asked=True)[1]
    if problem:  # before any server starts for it
        raise ValueError(problem)
    try:
        resources_for(context).start_in_background("store", "llm", "embedder")
        show = None if args.json else (lambda text: print(printable(text), flush=True))
        result = answered_first(graph, {"question": args.claim, "check": True}, context=context, show=show)
        if result.get("problem"):
            raise ValueError(result["problem"])
        if args.json:
            print(json_printable(json.dumps(claim_json(result), indent=2, ensure_ascii=False)))
            return 0
        for line in learned_lines(result):
            print(printable(line))
        return 0
    finally:
        resources_for(context).close()
