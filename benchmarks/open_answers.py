"""Open answers, every method on the same questions: does the graph ever make an answer worse?

Reads the `amg bench DATASET --open --method M` runs in a bench folder (closed-book, cot, rag, kg-<mode>), judges
every stored answer again with today's judge (evaluation/open_answers.py: the option an answer stands for, or
none), and reports per method its accuracy and, for the graph against each baseline, the questions it lost (the
baseline right, the graph wrong) and gained. The graph's own draft is the bare model's answer asked the same way,
so "lost to the graph" is also counted against it: only a revision can lose there. Two runs of the same bare model
can differ a little (llama.cpp reuses the previous prompt's cache, and float sums then differ): the closed-book
run against the graph's drafts measures that noise.

    python -m benchmarks.open_answers bench-out/mmlu-med-dev [--dataset ../shared/data/mmlu-med-dev.jsonl] [--rewrite]

``--rewrite`` stores today's judgement in each run's results (``predicted``, ``correct``; the run's own kept once as
``judged_at_run``), so the calibration benchmark fits on what today's judge says.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from amg.evaluation.datasets import load
from amg.evaluation.open_answers import judged_option
from amg.graphs.context import Context
from amg.tools.vectors.embeddings import load_embedder, model_path
from benchmarks.report import emit


def judged(rows: list[dict], items: dict[str, dict], embed, field: str = "answer") -> dict[str, bool]:
    """Per question id, whether the answer in ``field`` (of the row, or of its confidence basis) stands for the
    gold option; an unanswered question is wrong."""
    return {i: letter == items[i]["answer"] for i, letter in options_of(rows, items, embed, field).items()}


def options_of(rows: list[dict], items: dict[str, dict], embed, field: str = "answer") -> dict[str, str | None]:
    """Per question id, the option the answer in ``field`` stands for (None: none, or no answer)."""
    letters = {}
    for row in rows:
        text = row.get(field) if field == "answer" else (row.get("confidence_basis") or {}).get(field)
        letters[row["id"]] = judged_option(text, items[row["id"]]["options"], embed) if text else None
    return letters


def rewrite(path: Path, rows: list[dict], letters: dict[str, str | None], items: dict[str, dict]) -> None:
    """``rows`` written back to ``path`` with today's judgement (the run's own kept once as ``judged_at_run``)."""
    lines = []
    for row in rows:
        row.setdefault("judged_at_run", {"predicted": row.get("predicted"), "correct": row.get("correct")})
        row["predicted"] = letters[row["id"]]
        row["correct"] = letters[row["id"]] == items[row["id"]]["answer"]
        lines.append(json.dumps(row, ensure_ascii=False))
    tmp = path.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    tmp.replace(path)


def versus(first: dict[str, bool], second: dict[str, bool]) -> dict:
    """On the questions both answered: how many only ``first`` got right (lost by ``second``) and only ``second``."""
    common = [i for i in first if i in second]
    lost = [i for i in common if first[i] and not second[i]]
    gained = [i for i in common if second[i] and not first[i]]
    n = len(common)
    return {"n": n, "lost": len(lost), "gained": len(gained), "lost_share": round(len(lost) / n, 3) if n else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="bench-out/<dataset>, holding the -open runs")
    parser.add_argument("--dataset", type=Path, help="the questions (default: the path the runs recorded)")
    parser.add_argument("--rewrite", action="store_true", help="store today's judgement in each run's results")
    args = parser.parse_args()
    runs = {
        p.name: p for p in sorted(args.folder.iterdir()) if p.name.endswith("-open") and (p / "results.jsonl").exists()
    }
    summary = json.loads((next(iter(runs.values())) / "summary.json").read_text()) if runs else {}
    dataset = args.dataset or Path(summary.get("config", {}).get("dataset", ""))
    items = {item["id"]: item for item in load(dataset).items}
    embedder = load_embedder(str(model_path(Context().embedding_model, Context().data_path)))

    def embed(texts: list[str]):
        return embedder.encode(texts, normalize_embeddings=True, show_progress_bar=False)

    rows = {
        m: [json.loads(x) for x in (p / "results.jsonl").read_text().splitlines() if x.strip()] for m, p in runs.items()
    }
    letters = {m: options_of(r, items, embed) for m, r in rows.items()}
    if args.rewrite:
        for m, r in rows.items():
            rewrite(runs[m] / "results.jsonl", r, letters[m], items)
    right = {m.removesuffix("-open"): {i: x == items[i]["answer"] for i, x in ls.items()} for m, ls in letters.items()}
    graph = next((m for m in right if m.startswith("kg")), None)
    figures: dict = {"dataset": dataset.name, "accuracy": {}, "n": {}}
    table = []
    for method, marks in right.items():
        figures["accuracy"][method] = round(sum(marks.values()) / len(marks), 3) if marks else 0.0
        figures["n"][method] = len(marks)
        table.append((method, f"n {len(marks)}  accuracy {figures['accuracy'][method]:.3f}"))
    if graph:
        drafts = judged(rows[f"{graph}-open"], items, embed, "draft")
        figures["graph_vs_its_draft"] = versus(drafts, right[graph])
        table.append((f"{graph} against its own draft", _said(figures["graph_vs_its_draft"])))
        for base in (m for m in right if not m.startswith("kg")):
            figures[f"graph_vs_{base}"] = versus(right[base], right[graph])
            table.append((f"{graph} against {base}", _said(figures[f"graph_vs_{base}"])))
        if "closed-book" in right:
            figures["bare_model_run_to_run"] = versus(right["closed-book"], drafts)
            table.append(
                ("closed-book run against the graph's drafts (noise)", _said(figures["bare_model_run_to_run"]))
            )
        revised = [r for r in rows[f"{graph}-open"] if (r.get("confidence_basis") or {}).get("revised")]
        figures["revised"] = len(revised)
        figures["revised_right"] = sum(right[graph][r["id"]] for r in revised)
        table.append(("revised by a strong fact", f"{len(revised)}, of which right {figures['revised_right']}"))
    emit(f"Open answers, same questions, same judge ({args.folder.name})", table, figures)


def _said(pair: dict) -> str:
    return f"n {pair['n']}  lost {pair['lost']} ({pair['lost_share']:.1%})  gained {pair['gained']}"


if __name__ == "__main__":
    main()
