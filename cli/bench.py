"""``amg bench``: accuracy, calibration, cost and latency on exam, research-question or claim sets, by answering method.

Results are appended per question (``results.jsonl``), so ``--resume`` continues an
interrupted run; the summary, reliability diagram and report are recomputed from them.
The kg method is labelled by its evidence mode (``kg-hybrid``, ``kg-offline``: run after a hybrid run
on the same data dir, what the graph kept). Items that carry gold ``pmids`` (PubMedQA) add the
literature figures (evaluation/citations.py), and their rag reads the local literature index.
"""

from __future__ import annotations

import json
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from tqdm import tqdm

from amg.cli.answer_format import pmids
from amg.evaluation import baselines
from amg.evaluation.citations import literature_figures, quote_check, relevance_figures
from amg.evaluation.datasets import load, shuffled
from amg.evaluation.metrics import (
    accuracy,
    ece,
    letter_distribution,
    macro_f1,
    percentile,
    reliability_png,
)
from amg.evaluation.open_answers import judged_option
from amg.evaluation.report import write_report
from amg.evaluation.splits import select
from amg.graphs.context import Context
from amg.graphs.qa_graph import graph
from amg.graphs.resources import resources_for
from amg.tools.llm.chat import ModelUnavailable
from amg.tools.llm.weights import LOCAL_MODELS
from amg.tools.question_kinds import question_kind


def run(args, context: Context) -> int:
    if getattr(args, "split", None) in ("tune", "held-out") and not args.dataset.endswith(".jsonl"):
        raise ValueError("--split tune|held-out picks claims of a SciFact claims file (.jsonl); others take fit|report")
    if args.model in LOCAL_MODELS:
        context = context.with_overrides(local_model=args.model, openai_base_url="")
    elif args.model:
        context = context.with_overrides(llm_model=args.model)
    context = context.with_overrides(retrieval_uses_options=args.use_options)
    res = resources_for(context)
    try:
        return _bench(args, context, res)
    finally:
        res.close()


def label(method: str, context: Context, open_answers: bool = False) -> str:
    """The method as reported: kg with its evidence mode; ``-open`` when asked without the options."""
    return (f"kg-{context.evidence_mode}" if method == "kg" else method) + ("-open" if open_answers else "")


def _answer(method: str, item: dict, *, context: Context, res, use_options: bool) -> dict:
    q, options = item["question"], item["options"]
    kind = question_kind(q, options)
    if method == "closed-book":
        return baselines.closed_book(q, options, res.llm, res.calibration(method, kind))
    if method == "cot":
        return baselines.chain_of_thought(q, options, res.llm, res.calibration(method, kind))
    if method == "rag":
        query = q + (" " + " ".join(options.values()) if use_options else "")
        if item.get("pmids"):  # a question from a paper: MedRAG-style, from the literature
            return baselines.retrieval(
                q, options, res.llm, res.evidence, query, "pubmed", calibration=res.calibration(method, kind)
            )
        return baselines.retrieval(
            q,
            options,
            res.llm,
            res.evidence,
            query,
            "textbook",
            k=4,
            chars=600,
            calibration=res.calibration(method, kind),
        )
    result, answered_s = _answered(q, options, context)
    fetched = [r["id"] for found in (result.get("evidence") or {}).values() for r in found.get("records", [])]
    return {
        "option": result.get("option"),
        "answer": result.get("answer", ""),
        "confidence": result.get("confidence", 0.0),
        "confidence_basis": result.get("confidence_basis"),
        "llm_calls": result.get("llm_calls", 0),
        "tokens": result.get("tokens", 0),
        "timings_ms": result.get("timings_ms", {}),
        "fetched_ids": fetched + [e["id"] for e in result.get("evidence_index", [])],
        "cited_ids": [c["evidence_id"] for c in result.get("citations", [])],
        "learned": len(result.get("new_relations", [])),
        "learning_faults": result.get("learning_faults", 0),
        "degradations": result.get("degradations", []),
        "answered_s": answered_s,
        "quote_check": quote_check(result, res.store) if result.get("confidence_basis") else None,
    }


def _answered(question: str, options: dict[str, str], context: Context) -> tuple[dict[str, Any], float | None]:
    """The graph's final state, and the seconds until its answer node finished: learning runs after it, its
    branches in parallel, so their summed node times are not the wall time the user waits beyond the answer."""
    started, answered_s = time.perf_counter(), None
    result: dict[str, Any] = {}  # the graph's state (QAState), as the stream hands it over
    for mode, chunk in graph.stream(
        {"question": question, "options": options}, context=context, stream_mode=["updates", "values"]
    ):
        if mode == "updates" and "answer" in chunk:
            answered_s = time.perf_counter() - started
        elif mode == "values":
            result = cast(dict[str, Any], chunk)  # stream's declared items do not say a mode list yields pairs
    return result, answered_s


def _bench(args, context: Context, res) -> int:
    if getattr(args, "records", None):
        from amg.cli.records_bench import run as run_records

        return run_records(args, context, res)
    dataset = load(Path(args.dataset))
    if dataset.kind == "claims":
        from amg.cli.claim_bench import run_claims

        return run_claims(args, context, res=res, dataset=dataset)
    items = select(dataset.name, dataset.items, getattr(args, "split", None))
    items = items[: args.limit] if args.limit else items
    if args.shuffle_options:
        items = [shuffled(item, args.seed) for item in items]
    out = Path(args.out or f"bench-out/{dataset.name}") / label(args.method, context, args.open)
    out.mkdir(parents=True, exist_ok=True)
    results_path = out / "results.jsonl"
    done = set()
    if args.resume and results_path.exists():
        done = _resumable(results_path)
    elif results_path.exists():
        results_path.unlink()
    before = res.store.stats() if args.method == "kg" else None
    with results_path.open("a") as sink:
        for item in tqdm([i for i in items if i["id"] not in done], desc=f"{dataset.name} {out.name}", unit=" q"):
            started = time.perf_counter()
            try:
                answer = _answer(
                    args.method,
                    {**item, "options": {}} if args.open else item,
                    context=context,
                    res=res,
                    use_options=args.use_options,
                )
                if args.open:  # the open answer mapped onto the options it was not shown; a refusal names none
                    answer["option"] = (
                        judged_option(answer["answer"], item["options"], _embed(res))
                        if answer.get("confidence_basis")
                        else None
                    )
            except ModelUnavailable as exc:  # one question's failed call is an unanswered question, not a lost run
                answer = {"option": None, "confidence": 0.0, "llm_calls": 0, "tokens": 0, "error": str(exc)}
            row = {
                "id": item["id"],
                "subject": item["subject"],
                "gold": item["answer"],
                "predicted": answer["option"],
                "correct": answer["option"] == item["answer"],
                "confidence": answer["confidence"],
                "latency_s": round(time.perf_counter() - started, 3),
                "llm_calls": answer["llm_calls"],
                "tokens": answer["tokens"],
                "timings_ms": answer.get("timings_ms", {}),
                "confidence_basis": answer.get("confidence_basis"),
                "error": answer.get("error"),
            }
            answer_s = min(answer.get("answered_s") or row["latency_s"], row["latency_s"])
            row.update(
                answer_s=round(answer_s, 3),
                learn_s=round(row["latency_s"] - answer_s, 3),
                learned=answer.get("learned", 0),
                learning_faults=answer.get("learning_faults", 0),
                degradations=answer.get("degradations", []),
                quote_check=answer.get("quote_check"),
            )
            if args.open:
                row["answer"] = answer.get("answer", "")
            if item.get("pmids"):
                row.update(
                    gold_pmids=item["pmids"],
                    fetched_pmids=pmids(answer.get("fetched_ids", [])),
                    cited_pmids=pmids(answer.get("cited_ids", [])),
                )
            sink.write(json.dumps(row) + "\n")
            sink.flush()
    after = res.store.stats() if args.method == "kg" else None
    summary = summarize(results_path, args, context=context, res=res, dataset=dataset, before=before, after=after)
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    write_report(out.parent)
    print(
        f"{summary['method']}: n={summary['n']} accuracy={summary['accuracy']:.3f} macro_f1={summary['macro_f1']:.3f} "
        f"ece={summary['ece']:.3f} unparsed={summary['unparsed']} p50={summary['latency_p50_s']:.2f}s "
        f"calls/q={summary['llm_calls_per_question']:.2f}"
        + _literature_line(summary["literature"])
        + f"  report: {out.parent / 'report.md'}"
    )
    return 0


def _embed(res):
    return lambda texts: res.embedder.encode(texts, normalize_embeddings=True)


def _literature_line(figures: dict | None) -> str:
    if not figures:
        return ""
    precision = figures["citation_precision"]
    return (
        f" gold_recall={figures['gold_recall']:.3f} citation_hit={figures['citation_hit']:.3f} "
        f"citation_precision={'n/a' if precision is None else f'{precision:.3f}'}"
    )


def _resumable(results_path: Path) -> set[str]:
    """Ids already answered; a line torn by a kill is dropped (its question is asked again)."""
    kept = []
    for line in results_path.read_text().splitlines():
        try:
            kept.append((json.loads(line)["id"], line))
        except (ValueError, KeyError, TypeError):
            continue
    results_path.write_text("".join(f"{line}\n" for _, line in kept))
    return {ident for ident, _ in kept}


def summarize(results_path: Path, args, *, context: Context, res, dataset, before, after) -> dict:
    rows = [json.loads(line) for line in results_path.read_text().splitlines() if line.strip()]
    gold, predicted = [r["gold"] for r in rows], [r["predicted"] for r in rows]
    confidences, correct = [float(r["confidence"] or 0.0) for r in rows], [bool(r["correct"]) for r in rows]
    method = label(args.method, context, args.open)
    reliability_png(confidences, correct, results_path.parent / "reliability.png", f"{method} ({res.model_name})")
    subjects = sorted({r["subject"] for r in rows})
    nodes = sorted({node for r in rows for node in r["timings_ms"]})
    return {
        "n": len(rows),
        "accuracy": accuracy(gold, predicted),
        "macro_f1": macro_f1(gold, predicted),
        "ece": ece(confidences, correct),
        "unparsed": sum(p is None for p in predicted),
        "latency_p50_s": percentile([r["latency_s"] for r in rows], 50),
        "latency_p95_s": percentile([r["latency_s"] for r in rows], 95),
        "llm_calls_per_question": statistics.mean(r["llm_calls"] for r in rows) if rows else 0,
        "tokens_per_question": statistics.mean(r["tokens"] for r in rows) if rows else 0,
        "method": method,
        "model": res.model_name,
        **answer_figures(rows, gold, predicted),
        "literature": literature_figures(rows),
        "citation_relevance": relevance_figures(rows),
        "per_subject_accuracy": {
            s: accuracy(
                [r["gold"] for r in rows if r["subject"] == s], [r["predicted"] for r in rows if r["subject"] == s]
            )
            for s in subjects
        },
        "node_latency_ms": {
            n: {
                "p50": percentile([r["timings_ms"][n] for r in rows if n in r["timings_ms"]], 50),
                "p95": percentile([r["timings_ms"][n] for r in rows if n in r["timings_ms"]], 95),
            }
            for n in nodes
        },
        "predicted_letters": letter_distribution(predicted),
        "gold_letters": letter_distribution(gold),
        "graph_growth": {
            "entities": after["entities"] - before["entities"],
            "relations": after["relations"] - before["relations"],
        }
        if before and after
        else None,
        "config": {
            "dataset": str(args.dataset),
            "skipped_records": dataset.skipped,
            "limit": args.limit,
            "shuffle_options": args.shuffle_options,
            "seed": args.seed,
            "retrieval_uses": "question and options" if args.use_options else "question only",
            "evidence_mode": context.evidence_mode,
            "tau": context.tau,
            "max_entities": context.max_entities,
            "depth": context.max_depth,
            "traversal": context.traversal,
            "sources": context.sources,
            "model_sha256": LOCAL_MODELS[context.local_model].sha256 if not context.openai_base_url else None,
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        },
    }


def answer_figures(rows: list[dict], gold: list[str], predicted: list[str | None]) -> dict:
    """Seconds to the answer and of learning after it, what was learned, and the always-the-commonest baseline."""
    commonest = min(set(gold), key=lambda letter: (-gold.count(letter), letter)) if gold else None  # ties: first letter
    learning = [r["learn_s"] for r in rows if "learn" in r.get("timings_ms", {})]  # the questions that learned
    counts = letter_distribution(predicted)
    return {
        "answer_p50_s": percentile([r.get("answer_s", r["latency_s"]) for r in rows], 50),
        "learn_p50_s": percentile(learning, 50),
        "learned_per_question": statistics.mean(r.get("learned", 0) for r in rows) if rows else 0,
        "learning_faults": sum(r.get("learning_faults", 0) for r in rows),
        "largest_option_share": max(counts.values()) / len(rows) if rows else 0.0,
        "baseline": {
            "option": commonest,
            "accuracy": accuracy(gold, [commonest] * len(gold)),
            "macro_f1": macro_f1(gold, [commonest] * len(gold)),
        },
    }
