"""``amg check "CLAIM"``: the claim checked against the literature, each paper's stance with the sentences that
settle it, the verdict across papers; ``--json`` lists each paper's stance and sentence numbers."""

from __future__ import annotations

import json

from amg.cli.answer_format import claim_json
from amg.cli.qa import answered_first, learned_lines
from amg.cli.terminal import json_printable, printable
from amg.graphs.context import Context
from amg.graphs.resources import resources_for


def run(args, context: Context) -> int:
    from amg.graphs.qa_graph import graph

    try:
        resources_for(context).start_in_background("store", "llm", "embedder")
        show = None if args.json else (lambda text: print(printable(text), flush=True))
        payload = {"question": args.claim, "check": True, "claim": getattr(args, "derived_claim", "") or args.claim}
        result = answered_first(graph, payload, context=context, show=show)
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
