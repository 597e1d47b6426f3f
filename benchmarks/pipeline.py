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

from amg.evaluation.metrics import percentile
from amg.graphs.context import Context
from amg.graphs.qa_graph import graph
from amg.graphs.resources import Resources, install
from amg.testing.scripted_llm import (
    ScriptedServer,
    answer_lines,
    asks_for_answer,
    asks_for_entities,
    last_turn,
)
from benchmarks.report import emit

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "mmlu-med-dev.jsonl"


def zero_latency(body: dict) -> dict:
    if asks_for_entities(body):
        question = last_turn(body).split("</question>")[0].split("<question>")[-1]
        words = sorted(set(re.findall(r"[A-Za-z]{7,}", question)), key=len)[-3:]
        return {"content": "\n".join(f"{w} | other" for w in words)}
    if asks_for_answer(body):
        return answer_lines(option="A", confidence=0.5, citations=[1])
    return {"content": "reasoning"}


def load_questions(n: int) -> list[dict]:
    return [json.loads(line) for line in DEV.read_text().splitlines()[:n]]


def run(questions: list[dict], ctx: Context) -> tuple[list[float], dict[str, list[float]], list[int], list[bool]]:
    """Per question: wall ms; per node: ms; per question: LLM calls and whether the graph had paths for it."""
    totals, by_node, calls, with_paths = [], {}, [], []
    for q in questions:
        started = time.perf_counter()
        result = graph.invoke({"question": q["question"], "options": q["options"]}, context=ctx)
        totals.append((time.perf_counter() - started) * 1000)
        calls.append(result.get("llm_calls", 0))
        with_paths.append(any(n["depth"] > 0 for n in result.get("subgraph", {}).get("nodes", [])))
        for node, ms in result.get("timings_ms", {}).items():
            by_node.setdefault(node, []).append(ms)
    return totals, by_node, calls, with_paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--e2e-questions", type=int, default=12)
    args = parser.parse_args()
    questions = load_questions(max(args.questions, args.e2e_questions + 1))
    server = ScriptedServer(zero_latency)
    ctx = Context(evidence_mode="offline", openai_base_url=server.base_url, openai_api_key="x", llm_model="scripted")
    base = Resources(ctx)
    if base.store.stats()["entities"] == 0:
        raise SystemExit(f"the KG in {ctx.data_path} is empty: run `amg kg seed` first")
    install(base)
    run(questions[:3], ctx)  # warm-up: models, caches, connections
    totals, by_node, calls, _ = run(questions[: args.questions], ctx)
    server.close()
    e2e_ctx = Context(evidence_mode="offline", openai_base_url="")
    install(Resources(e2e_ctx, store=base.store))
    run(questions[args.e2e_questions : args.e2e_questions + 1], e2e_ctx)  # warm-up (model start) on an untimed question
    e2e, _, e2e_calls, e2e_paths = run(questions[: args.e2e_questions], e2e_ctx)
    rich = [s / 1000 for s, has in zip(e2e, e2e_paths) if has]
    bare = [s / 1000 for s, has in zip(e2e, e2e_paths) if not has]
    figures = {
        "nonllm_p50_ms": round(percentile(totals, 50), 1),
        "nonllm_p95_ms": round(percentile(totals, 95), 1),
        "llm_calls_per_question": round(statistics.mean(calls), 2),
        "e2e_p50_s_embedded": round(statistics.median(e2e) / 1000, 2),
        "e2e_p50_s_with_graph_paths": round(statistics.median(rich), 2) if rich else None,
        "e2e_p50_s_without_graph_paths": round(statistics.median(bare), 2) if bare else None,
        "nonllm_p50_ms_by_node": {node: round(percentile(v, 50), 1) for node, v in sorted(by_node.items())},
    }
    rows = [
        (f"node {node}", f"p50 {round(percentile(v, 50), 1)} ms, p95 {round(percentile(v, 95), 1)} ms")
        for node, v in sorted(by_node.items())
    ]
    rows += [
        ("whole question (zero-latency LLM)", f"p50 {figures['nonllm_p50_ms']} ms, p95 {figures['nonllm_p95_ms']} ms"),
        ("LLM calls per question", figures["llm_calls_per_question"]),
        (
            f"end to end, embedded 0.5B ({len(e2e)} q)",
            f"p50 {figures['e2e_p50_s_embedded']} s, {statistics.mean(e2e_calls):.1f} calls",
        ),
        (f"  questions the graph has paths for ({len(rich)})", f"p50 {figures['e2e_p50_s_with_graph_paths']} s"),
        (f"  questions it has none for ({len(bare)})", f"p50 {figures['e2e_p50_s_without_graph_paths']} s"),
    ]
    emit(f"QA pipeline, offline mode, {len(totals)} MMLU medical questions", rows, figures)


if __name__ == "__main__":
    main()
