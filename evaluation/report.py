"""report.md: every method run into one bench folder, side by side, and where two methods part ways.

For each pair of methods answered on the same questions, the questions one gets right and the other wrong are
listed by id ("gained" and "lost"): a method that adds knowledge must be judged by what it changes, not only by
its accuracy, and a graph that turns a right answer wrong is a defect to read, not noise to average away.
"""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

SHOWN_IDS = 12  # question ids listed per pair and direction; the counts are always complete


def paired(first: list[dict], second: list[dict]) -> dict:
    """On the questions both answered: how many both got right, and the ids that only ``first``, or only
    ``second``, got right."""
    a = {r["id"]: bool(r["correct"]) for r in first}
    b = {r["id"]: bool(r["correct"]) for r in second}
    common = [i for i in a if i in b]
    return {
        "n": len(common),
        "both_right": sum(a[i] and b[i] for i in common),
        "only_first": [i for i in common if a[i] and not b[i]],
        "only_second": [i for i in common if b[i] and not a[i]],
    }


def _rows(folder: Path) -> list[dict]:
    path = folder / "results.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def pair_lines(folder: Path, methods: list[str]) -> list[str]:
    """The table of method pairs: n, both right, right only by each, with the first ids of each."""
    rows = {m: _rows(folder / m) for m in methods}
    lines = [
        "",
        "## Where methods part ways (same questions)",
        "",
        "| first | second | n | both right | only first | only second | only first (ids) | only second (ids) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for first, second in combinations(methods, 2):
        if first.startswith("kg") and not second.startswith("kg"):
            first, second = second, first  # the graph second: "only second" is what it gained, "only first" lost
        p = paired(rows[first], rows[second])
        if not p["n"]:
            continue
        ids = [", ".join(map(str, p[side][:SHOWN_IDS])) for side in ("only_first", "only_second")]
        lines.append(
            f"| {first} | {second} | {p['n']} | {p['both_right']} | {len(p['only_first'])} | {len(p['only_second'])} "
            f"| {ids[0]} | {ids[1]} |"
        )
    return lines


def write_report(folder: Path) -> None:
    """report.md: every method run into this folder, side by side, with its configuration and where pairs part."""
    summaries = [json.loads(p.read_text()) for p in sorted(folder.glob("*/summary.json"))]
    lines = [
        f"# AMG evaluation: {folder.name}",
        "",
        "| method | model | n | accuracy | macro-F1 | ECE | unparsed | p50 s | LLM calls/q | tokens/q |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in summaries:
        lines.append(
            f"| {s['method']} | {s['model']} | {s['n']} | {s['accuracy']:.3f} | {s['macro_f1']:.3f} | "
            f"{s['ece']:.3f} | {s['unparsed']} | {s['latency_p50_s']:.2f} | "
            f"{s['llm_calls_per_question']:.2f} | {s['tokens_per_question']:.0f} |"
        )
    for s in summaries:
        lines += [
            "",
            f"## {s['method']}",
            "",
            f"![reliability]({s['method']}/reliability.png)",
            "",
            f"- predicted letters: {s['predicted_letters']} (gold: {s['gold_letters']})",
            "- per subject: " + ", ".join(f"{k} {v:.2f}" for k, v in s["per_subject_accuracy"].items()),
            f"- graph growth: {s['graph_growth']}",
            f"- configuration: `{json.dumps(s['config'])}`",
        ]
        if s.get("baseline"):
            base = s["baseline"]
            lines += [
                f"- always {base['option']}: accuracy {base['accuracy']:.3f}, macro-F1 {base['macro_f1']:.3f}; "
                f"largest predicted share {s['largest_option_share']:.2f}",
                f"- seconds to the answer p50 {s['answer_p50_s']:.1f}, learning after it p50 {s['learn_p50_s']:.1f}; "
                f"relations learned per question {s['learned_per_question']:.2f}; "
                f"faults while learning {s['learning_faults']}",
            ]
        if s.get("literature"):
            lit = s["literature"]
            precision = "n/a" if lit["citation_precision"] is None else f"{lit['citation_precision']:.3f}"
            lines.append(
                f"- literature (n={lit['n']}): gold_recall {lit['gold_recall']:.3f}, citation_hit "
                f"{lit['citation_hit']:.3f}, citation_precision {precision}, answers citing a paper "
                f"{lit['citing_share']:.3f}"
            )
        if s.get("citation_relevance"):
            rel = s["citation_relevance"]
            lines.append(
                f"- citation relevance (quote names the answer's key entity): of what the model cited "
                f"{rel['model_cited_relevance']:.3f} ({rel['model_cited_items']} items), of what was printed "
                f"{rel['printed_relevance']:.3f} ({rel['printed_items']} items); answers citing nothing "
                f"{rel['answers_citing_nothing']}"
            )
    lines += pair_lines(folder, [s["method"] for s in summaries])
    (folder / "report.md").write_text("\n".join(lines) + "\n")
