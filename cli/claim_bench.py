"""``amg bench`` on a claims file in SciFact's format: each claim checked by cot, rag or AMG's claim path (kg, labelled
by its evidence mode: kg-hybrid, and kg-offline run after it on the same data dir), scored by SciFact's official
metrics (evaluation/scifact_metrics.py) and at the claim level.

Writes ``results.jsonl`` (one row a claim, so ``--resume`` continues), ``predictions.jsonl`` in SciFact's submission
format (``{"id", "evidence": {doc_id: {"sentences", "label"}}}``, no entry for "no evidence") and ``summary.json``.
``--split`` keeps the tune or the held-out claims (evaluation/datasets.py ``split_of``: even ids tune, odd held out).
"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from tqdm import tqdm

from amg.agents.claim_checker.verdict import submission
from amg.evaluation import claim_baselines
from amg.evaluation.datasets import split_of
from amg.evaluation.metrics import percentile
from amg.evaluation.scifact_metrics import retrieval_recall, scifact_metrics, verdict_figures
from amg.evaluation.splits import select
from amg.graphs.claim_path import CLAIM_PAPERS
from amg.graphs.context import Context
from amg.graphs.qa_graph import graph
from amg.tools.literature.claim_search import find_papers
from amg.tools.llm.chat import ModelUnavailable

CLAIM_METHODS = ("cot", "rag", "kg")
KEPT = ("stances", "readings", "llm_calls", "tokens", "timings_ms", "learned", "error")  # of a check, in its row


def _doc(paper_id: str) -> str:
    """SciFact's doc id of a paper id ("s2:4983" -> "4983"); another scheme's id as it is."""
    return paper_id.removeprefix("s2:")


def check(method: str, claim: str, *, context: Context, res) -> dict:
    """One claim checked by ``method``: verdict, confidence, evidence (paper id -> {sentences, label}), retrieved."""
    if method == "cot":
        done = claim_baselines.chain_of_thought(claim, res.llm)
    elif method == "rag":
        if res.literature is None:
            raise ValueError("rag reads the local literature index: build one with `amg ingest papers FILE…`")
        found = find_papers(res.literature, claim, vectors=res.sentence_vectors, k=CLAIM_PAPERS)
        done = claim_baselines.retrieval(claim, found, res.llm)
    else:
        result = graph.invoke({"question": claim, "check": True}, context=context)
        papers = result.get("papers") or []
        verdict = result.get("verdict") or {}
        return {
            "verdict": verdict.get("verdict"),
            "confidence": verdict.get("confidence", 0.0),
            "evidence": submission(papers),
            "retrieved": [p["id"] for p in papers],
            "stances": {p["id"]: p["stance"] for p in papers},
            "readings": {_doc(p["id"]): {"yes": p.get("said", {}), "named": p.get("named", [])} for p in papers},
            "llm_calls": result.get("llm_calls", 0),
            "tokens": result.get("tokens", 0),
            "timings_ms": result.get("timings_ms", {}),
            "learned": len(result.get("new_relations", [])),
            "degradations": result.get("degradations", []),
        }
    verdict = done["verdict"]
    return {**done, "confidence": done["probabilities"].get(verdict or "", 0.0), "timings_ms": {}, "learned": 0}


def run_claims(args, context: Context, *, res, dataset) -> int:
    if args.method not in CLAIM_METHODS:
        raise ValueError(f"a claims file is checked by {', '.join(CLAIM_METHODS)}; not {args.method}")
    split = getattr(args, "split", None) or "all"
    if split in ("fit", "report"):
        items = select(dataset.name, dataset.items, split)
    else:
        items = [i for i in dataset.items if split == "all" or split_of(i) == split]
    items = items[: args.limit] if args.limit else items
    method = f"kg-{context.evidence_mode}" if args.method == "kg" else args.method
    out = Path(args.out or f"bench-out/{dataset.name}-{split}") / method
    out.mkdir(parents=True, exist_ok=True)
    results_path = out / "results.jsonl"
    done = _answered(results_path) if args.resume else set()
    if not args.resume and results_path.exists():
        results_path.unlink()
    before = res.store.stats() if args.method == "kg" else None
    with results_path.open("a") as sink:
        for item in tqdm([i for i in items if i["id"] not in done], desc=f"{dataset.name} {method}", unit=" claim"):
            started = time.perf_counter()
            try:
                checked = check(args.method, item["question"], context=context, res=res)
            except ModelUnavailable as exc:  # one claim's failed call is an unanswered claim, not a lost run
                checked = {"verdict": None, "confidence": 0.0, "evidence": {}, "retrieved": [], "error": str(exc)}
            row = {
                "id": item["id"],
                "split": split_of(item),
                "gold": item["answer"],
                "predicted": checked["verdict"],
                "confidence": checked.get("confidence", 0.0),
                "evidence": {_doc(k): v for k, v in checked["evidence"].items()},
                "retrieved": [_doc(p) for p in checked["retrieved"]],
                "gold_docs": list(item["evidence"]),
                "latency_s": round(time.perf_counter() - started, 3),
                **{k: checked.get(k) for k in KEPT},
            }
            sink.write(json.dumps(row) + "\n")
            sink.flush()
    rows = [json.loads(line) for line in results_path.read_text().splitlines() if line.strip()]
    with (out / "predictions.jsonl").open("w") as sink:
        for row in rows:
            sink.write(
                json.dumps({"id": int(row["id"]) if row["id"].isdigit() else row["id"], "evidence": row["evidence"]})
                + "\n"
            )
    after = res.store.stats() if args.method == "kg" else None
    gold = {i["id"]: i["evidence"] for i in items}
    summary = summarize(
        rows, gold, method=method, res=res, context=context, args=args, split=split, before=before, after=after
    )
    summary["config"]["skipped_records"] = dataset.skipped
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    print(
        f"{method}: n={summary['n']} verdict_accuracy={summary['verdict_accuracy']:.3f} "
        f"verdict_macro_f1={summary['verdict_macro_f1']:.3f} "
        f"abstract_label_only_f1={summary['abstract_label_only_f1']['f1']:.3f} "
        f"sentence_selection_label_f1={summary['sentence_selection_label_f1']['f1']:.3f} "
        f"recall@3={summary['retrieval_recall_at_3']} p50={summary['latency_p50_s']:.2f}s  {out / 'summary.json'}"
    )
    return 0


def summarize(rows, gold, *, method, res, context, args, split, before, after) -> dict:
    rows = [r for r in rows if r["id"] in gold]
    predictions = {r["id"]: r["evidence"] for r in rows}
    retrieved = (
        retrieval_recall([r["gold_docs"] for r in rows], [r["retrieved"] for r in rows]) if method != "cot" else None
    )
    return {
        "n": len(rows),
        "method": method,
        "model": res.model_name,
        **scifact_metrics(predictions, {r["id"]: gold[r["id"]] for r in rows}),
        "retrieval_recall_at_3": retrieved,
        **verdict_figures([r["gold"] for r in rows], [r["predicted"] for r in rows]),
        "latency_p50_s": percentile([r["latency_s"] for r in rows], 50),
        "latency_p95_s": percentile([r["latency_s"] for r in rows], 95),
        "llm_calls_per_claim": statistics.mean(r.get("llm_calls") or 0 for r in rows) if rows else 0,
        "predicted_verdicts": dict(Counter(r["predicted"] or "unparsed" for r in rows)),
        "gold_verdicts": dict(Counter(r["gold"] for r in rows)),
        "learned_per_claim": statistics.mean(r.get("learned") or 0 for r in rows) if rows else 0,
        "errors": sum(bool(r.get("error")) for r in rows),
        "graph_growth": {k: after[k] - before[k] for k in ("entities", "relations")} if before and after else None,
        "config": {
            "dataset": str(args.dataset),
            "split": split,
            "limit": args.limit,
            "evidence_mode": context.evidence_mode,
            "claim_papers": CLAIM_PAPERS,
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        },
    }


def _answered(path: Path) -> set[str]:
    """Claims already checked in ``path`` (a line torn by a kill is dropped: its claim is checked again)."""
    if not path.exists():
        return set()
    kept = []
    for line in path.read_text().splitlines():
        try:
            kept.append((json.loads(line)["id"], line))
        except (ValueError, KeyError, TypeError):
            continue
    path.write_text("".join(f"{line}\n" for _, line in kept))
    return {ident for ident, _ in kept}
