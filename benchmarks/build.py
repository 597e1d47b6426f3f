"""KG build overhead: entities built per minute with a zero-latency LLM and recorded PubMed
responses (our own cost), and the PubMed-rate-bound time for 1,000 entities."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from amg.graphs import build_graph
from amg.graphs.context import Context
from amg.graphs.resources import Resources, install
from amg.testing.fakes import RecordedEntrez
from amg.testing.scripted_llm import ScriptedServer, prompt_text, requested_tool
from amg.tools.evidence.finder import EvidenceFinder
from amg.tools.evidence.pubmed import PubMedClient
from amg.tools.evidence.remote_calls import RateLimiter
from amg.tools.evidence.request_cache import RequestCache
from benchmarks.report import emit

REQUESTS_PER_ENTITY = 2  # esearch + efetch


def scorer(body: dict) -> dict:
    tool, prompt = requested_tool(body), prompt_text(body)
    name = prompt.split('entity "', 1)[1].split('"', 1)[0] if 'entity "' in prompt else "x"
    return {
        "tool": tool,
        "args": {
            "description": f"{name}.",
            "description_score": 7,
            "relations": [
                {
                    "sentence": f"{name} goes with {name} partner.",
                    "relation": "associated_with",
                    "other": f"{name} partner",
                    "score": 7,
                }
            ],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entities", type=int, default=200)
    args = parser.parse_args()
    data = Path(tempfile.mkdtemp(prefix="amg-build-"))
    server = ScriptedServer(scorer)
    ctx = Context(
        data_dir=str(data), sources="pubmed", openai_base_url=server.base_url, openai_api_key="x", llm_model="scripted"
    )
    pubmed = PubMedClient("", "", cache=RequestCache(data / "c.sqlite"), transport=RecordedEntrez())
    pubmed.limiter = RateLimiter(10_000)  # recorded responses: measure our overhead, not NCBI's rate limit
    finder = EvidenceFinder(pubmed=pubmed)
    install(Resources(ctx, evidence=finder))
    topics = [f"Topic entity {i}" for i in range(args.entities)]
    started = time.perf_counter()
    summary = build_graph.graph.invoke({"topics": topics}, context=ctx, config={"max_concurrency": 4})["summary"]
    minutes = (time.perf_counter() - started) / 60
    server.close()
    per_min = round(summary["entities_built"] / minutes, 1)
    no_key_min = round(1000 * REQUESTS_PER_ENTITY / 3 / 60, 1)
    key_min = round(1000 * REQUESTS_PER_ENTITY / 10 / 60, 1)
    figures = {
        "entities_per_min": per_min,
        "pubmed_bound_1000_min_no_key": no_key_min,
        "pubmed_bound_1000_min_with_key": key_min,
        "entities": summary["entities_built"],
    }
    emit(
        "KG build (zero-latency LLM, recorded PubMed)",
        [
            ("entities built", summary["entities_built"]),
            ("our overhead", f"{per_min} entities/min"),
            ("1,000 entities, PubMed-bound, no key (3 req/s)", f"{no_key_min} min"),
            ("1,000 entities, PubMed-bound, with key (10 req/s)", f"{key_min} min"),
        ],
        figures,
    )


if __name__ == "__main__":
    main()
