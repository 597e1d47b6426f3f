"""A chat's second question: answered as well as when asked alone?

Each pair of consecutive exam questions is asked open as a two-turn chat (the first question, then the second),
the way `amg chat` and Studio ask them; the second turn's answer is judged by the option it stands for, like
`amg bench --open`. Reported: how many second turns were read with the previous turn attached (a message that does
not lean on it should not be), their accuracy, and, given the same questions asked alone (`--alone`, an
`amg bench --open` results.jsonl), how many answers changed and how many were lost or gained by being asked in a
chat. Prints a table and a last-line JSON object.

    python -m benchmarks.chat_turns ../shared/data/mmlu-med-dev.jsonl --limit 20 [--alone RESULTS] [--model 1.5b]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import uuid
from pathlib import Path

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from amg.evaluation.open_answers import judged_option
from amg.graphs.context import Context
from amg.graphs.qa_graph import builder
from amg.graphs.resources import resources_for
from amg.tools.llm.weights import LOCAL_MODELS
from benchmarks.report import emit

LEANED_ON = "\n(Previous question: "  # how graphs/question.py attaches the previous turn


def pairs(path: Path, limit: int) -> list[tuple[dict, dict]]:
    """(first, second) for the first ``limit`` second questions: question i-1 then question i."""
    items = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return list(zip(items, items[1:]))[:limit]


def ask_pair(graph, first: dict, second: dict, context: Context) -> dict:
    """The second turn's state after a chat that asked ``first`` then ``second`` (their options left out)."""
    config = {"configurable": {"thread_id": str(uuid.uuid4())}}
    graph.invoke({"messages": [HumanMessage(first["question"])]}, config=config, context=context)
    started = time.perf_counter()
    result = graph.invoke({"messages": [HumanMessage(second["question"])]}, config=config, context=context)
    return {**result, "seconds": time.perf_counter() - started}


def compare(rows: list[dict], alone: dict[str, dict]) -> dict:
    """Answers that changed against the same questions asked alone, and the right ones lost or gained."""
    both = [r for r in rows if r["id"] in alone]
    return {
        "n_alone": len(both),
        "answer_changed": sum(r["answer"] != alone[r["id"]]["answer"] for r in both),
        "lost_to_the_chat": sum(alone[r["id"]]["correct"] and not r["correct"] for r in both),
        "gained_in_the_chat": sum(r["correct"] and not alone[r["id"]]["correct"] for r in both),
        "alone_accuracy": round(sum(alone[r["id"]]["correct"] for r in both) / len(both), 3) if both else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--alone", type=Path, help="results.jsonl of `amg bench --open` on the same questions")
    parser.add_argument("--model", default="1.5b")
    parser.add_argument("--out", type=Path, help="write each second turn as a JSONL row")
    args = parser.parse_args()
    context = Context(learn="off", evidence_mode="offline")
    if args.model in LOCAL_MODELS:
        context = context.with_overrides(local_model=args.model, openai_base_url="")
    res = resources_for(context)
    embed = lambda texts: res.embedder.encode(texts, normalize_embeddings=True)  # noqa: E731
    graph = builder.compile(checkpointer=InMemorySaver(), name="AMG chat")
    rows = []
    try:
        for first, second in pairs(args.dataset, args.limit):
            state = ask_pair(graph, first, second, context)
            answer = state.get("answer") or ""
            predicted = judged_option(answer, second["options"], embed)
            rows.append(
                {
                    "id": second["id"],
                    "asked_as": state.get("question", ""),
                    "leaned_on_previous": LEANED_ON in state.get("question", ""),
                    "answer": answer,
                    "predicted": predicted,
                    "correct": predicted == second["answer"],
                    "seconds": round(state["seconds"], 2),
                }
            )
            print(json.dumps(rows[-1])[:300], flush=True)
    finally:
        res.close()
    if args.out:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    alone = {}
    if args.alone:
        alone = {r["id"]: r for r in map(json.loads, args.alone.read_text().splitlines()) if r.get("error") is None}
    n = len(rows)
    figures = {
        "n": n,
        "read_with_previous_turn": sum(r["leaned_on_previous"] for r in rows),
        "accuracy": round(sum(r["correct"] for r in rows) / n, 3) if n else None,
        "p50_s": round(statistics.median(r["seconds"] for r in rows), 2) if rows else None,
        **compare(rows, alone),
    }
    emit(
        f"A chat's second question ({args.dataset.name}, {n} pairs, offline, {args.model})",
        [(name.replace("_", " "), value) for name, value in figures.items()],
        figures,
    )


if __name__ == "__main__":
    main()
