"""Knowledge coverage of a multiple-choice set: does the graph connect a question's entities to an
option's, and does that connection point at the right answer?

No model call, seconds instead of the hour a kg run takes on the dev set: entities are spotted with
the vocabularies, as the query parser does, and an option is linked when an edge of the graph joins
one of the question's entities to one of the option's own (the links the reasoner reads when the
options are looked up too, ``AMG_RETRIEVAL_USES_OPTIONS``). A graph that holds what the questions ask
links the right option more often than chance; one that does not cannot lift kg above cot.

    python -m benchmarks.coverage [DATASET]     (default: the dev set beside the repository)
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from amg.evaluation.datasets import load
from amg.graphs.context import Context
from amg.graphs.resources import Resources
from amg.tools.kg.traversal.traverse import Neighbors, question_links
from benchmarks.report import emit

DEV_SET = Path(__file__).resolve().parents[2] / "shared" / "data" / "mmlu-med-dev.jsonl"
Seeds = dict[str, tuple[str, str]]  # key -> (name, type), as the traversal takes them


def option_links(question: Seeds, options: dict[str, Seeds], neighbors: Neighbors) -> dict[str, list[str]]:
    """Per option letter, the edges (read as words) joining a question entity to one of the option's own
    entities; options without any are left out. An entity the question names too is not the option's own."""
    own = {letter: {k: v for k, v in found.items() if k not in question} for letter, found in options.items()}
    seeds = {**question, **{k: v for found in own.values() for k, v in found.items()}}
    key_of = {name: key for key, (name, _) in seeds.items()}
    linked: dict[str, list[str]] = {}
    for step in question_links(neighbors, seeds):
        ends = {key_of.get(step["source"]), key_of.get(step["target"])}
        if not ends & set(question):
            continue
        for letter, found in own.items():
            if ends & set(found):
                linked.setdefault(letter, []).append(f"{step['source']} {step['relation']} {step['target']}")
    return linked


def tally(rows: list[tuple[str, Seeds, dict[str, Seeds], dict[str, list[str]]]]) -> dict:
    """Counts over (gold letter, question entities, option entities, option links) per question."""
    linked = [(gold, links) for gold, _, _, links in rows if links]
    alone = [(gold, len(options), links) for gold, _, options, links in rows if len(links) == 1]
    return {
        "questions": len(rows),
        "with_question_entities": sum(bool(q) for _, q, _, _ in rows),
        "with_option_entities": sum(any(o.values()) for _, _, o, _ in rows),
        "with_a_linked_option": len(linked),
        "gold_option_linked": sum(gold in links for gold, links in linked),
        "options_linked": sum(len(links) for _, links in linked),
        "one_option_linked": len(alone),
        "one_option_linked_is_gold": sum(gold in links for gold, _, links in alone),
        "one_option_linked_is_gold_by_chance": round(sum(1 / choices for _, choices, _ in alone), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", nargs="?", type=Path, default=DEV_SET)
    args = parser.parse_args()
    if not args.dataset.exists():
        raise SystemExit(f"coverage: no dataset at {args.dataset}")
    items = load(args.dataset).items
    res = Resources(Context())
    started = time.perf_counter()
    rows = []
    try:
        for item in items:
            question = {c.key: (c.name, c.type) for c in res.linker.spot(item["question"])}
            options = {
                letter: {c.key: (c.name, c.type) for c in res.linker.spot(text)}
                for letter, text in item["options"].items()
            }
            rows.append((item["answer"], question, options, option_links(question, options, res.store.neighbors)))
    finally:
        res.close()
    figures = {**tally(rows), "dataset": args.dataset.name, "s": round(time.perf_counter() - started, 1)}
    linked, alone = figures["with_a_linked_option"], figures["one_option_linked"]
    emit(
        f"Knowledge coverage of {args.dataset.name}: question-option links in the graph",
        [
            ("questions", figures["questions"]),
            ("with vocabulary entities in the question", figures["with_question_entities"]),
            ("with vocabulary entities in an option", figures["with_option_entities"]),
            ("with an option the graph links to the question", linked),
            (
                "  of these, the right option linked",
                f"{figures['gold_option_linked']} of {linked} ({figures['options_linked']} options linked in all)",
            ),
            (
                "  exactly one option linked, and it is right",
                f"{figures['one_option_linked_is_gold']} of {alone}"
                f" (by chance: {figures['one_option_linked_is_gold_by_chance']})",
            ),
        ],
        figures,
    )


if __name__ == "__main__":
    main()
