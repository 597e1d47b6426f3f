"""QA pipeline cost: our own (non-LLM) time per question, by node, and end-to-end on the embedded model.

Part 1 uses a zero-latency scripted OpenAI-compatible server, so what is measured is the
pipeline itself (vocabulary spotting, linking, gap check, traversal, evidence numbering,
HTTP client overhead). Part 2 runs the embedded 0.5B model. Both in offline mode (no
network here) on the seeded KG of AMG_DATA_DIR and questions from the MMLU medical dev set.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from pathlib import Path

from benchmarks.report import emit
from graphs.context import Context
from graphs.qa_graph import graph
from graphs.resources import Resources, install
from tests.scripted_llm import ScriptedServer, asks_for_entities, prompt_text, requested_tool

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "mmlu-med-dev.jsonl"


def zero_latency(body: dict) -> dict:
    tool = requested_tool(body)
    if asks_for_entities(body):
        words = sorted(set(re.findall(r"[A-Za-z]{7,}", prompt_text(body).split("<question>")[-1])), key=len)[-3:]
        return {"content": "\n".join(f"{w} | other" for w in words)}
    if tool == "Answer":
        return {"tool": tool, "args": {"answer": "A", "option": "A", "confidence": 0.5, "citations": [1]}}
    return {"content": "reasoning"}


def load_questions(n: int) -> list[dict]:
    return [json.loads(line) for line in DEV.read_text().splitlines()[:n]]


def run(questions: list[dict], ctx: Context) -> tuple[list[float], dict[str, list[float]], list[int]]:
    totals, by_node, calls = [], {}, []
    for q in questions:
        started = time.perf_counter()
        result = graph.invoke({"question": q["question"], "options": q["options"]}, context=ctx)
        totals.append((time.perf_counter() - started) * 1000)
        calls.append(result.get("llm_calls", 0))
        for node, ms in result.get("timings_ms", {}).items():
            by_node.setdefault(node, []).append(ms)
    return totals, by_node, calls


def pct(values: list[float], q: int) -> float:
    return round(statistics.quantiles(values, n=100)[q - 1], 1) if len(values) > 1 else round(values[0], 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--e2e-questions", type=int, default=8)
    args = parser.parse_args()
    questions = load_questions(args.questions)
    server = ScriptedServer(zero_latency)
    ctx = Context(mode="offline", openai_base_url=server.base_url, openai_api_key="x", llm_model="scripted")
    base = Resources(ctx)
    if base.store.stats()["entities"] == 0:
        raise SystemExit(f"the KG in {ctx.data_path} is empty: run `amg kg seed` first")
    install(base)
    run(questions[:3], ctx)  # warm-up: models, caches, connections
    totals, by_node, calls = run(questions, ctx)
    server.close()
    e2e_ctx = Context(mode="offline", openai_base_url="")
    install(Resources(e2e_ctx, store=base.store))
    e2e, _, e2e_calls = run(questions[: args.e2e_questions], e2e_ctx)
    figures = {
        "nonllm_p50_ms": pct(totals, 50), "nonllm_p95_ms": pct(totals, 95),
        "llm_calls_per_question": round(statistics.mean(calls), 2),
        "e2e_p50_s_embedded": round(statistics.median(e2e) / 1000, 2),
        "nonllm_p50_ms_by_node": {node: pct(v, 50) for node, v in sorted(by_node.items())},
    }  # fmt: skip
    rows = [(f"node {node}", f"p50 {pct(v, 50)} ms, p95 {pct(v, 95)} ms") for node, v in sorted(by_node.items())]
    rows += [("whole question (zero-latency LLM)", f"p50 {figures['nonllm_p50_ms']} ms, p95 {figures['nonllm_p95_ms']} ms"),
             ("LLM calls per question", figures["llm_calls_per_question"]),
             (f"end to end, embedded 0.5B ({len(e2e)} q)", f"p50 {figures['e2e_p50_s_embedded']} s, "
              f"{statistics.mean(e2e_calls):.1f} calls")]  # fmt: skip
    emit(f"QA pipeline, offline mode, {len(totals)} MMLU medical questions", rows, figures)


if __name__ == "__main__":
    main()
