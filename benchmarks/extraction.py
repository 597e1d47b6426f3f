"""Relation-extraction precision of a model: the production scorer on hand-labelled passages.

How the set was made (evaluation/data/extraction_pairs.jsonl): written by hand for this benchmark, in our
own words, from well-established textbook knowledge; no copied text. 45 short passages (pharmacology,
adverse effects, drug interactions, disease-symptom, genetics, anatomy), each with the entity it is about
and 2-4 candidate relations labelled correct or not (98 of 176 correct). Every candidate involves that
entity, uses a type of tools/kg/schema.py and names entities the passage names. The negatives are hard:
the passage names both entities but negates the relation ("does not cause"), states another type between
them (prevents, not treats; an adverse effect, not an indication), or the candidate reverses its direction.

Each passage goes through the production path: the relation_scoring prompt and one structured call
(``agents.relation_scorer.assess``), then the grounding and keep-threshold filter (``grounded_relations``),
with the passage as the only evidence item, the entity's own type and no graph aliases. A kept relation matches a
candidate on
normalised names and type (an inverse such as treated_by is read forwards; symmetric types match either
way); one that matches none is "unlabelled" and not counted. precision = correct / (correct + incorrect)
matches, with a 95% Wilson interval; recall = labelled positives kept / labelled positives.

    python -m benchmarks.extraction --model 0.5b | 1.5b | <model at OPENAI_BASE_URL> [--write]

--write records the precision for the model's served name in tools/llm/maps/extraction_reliability.json,
which the scorer multiplies into every relation confidence it writes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from amg.agents.relation_scorer import assess, grounded_relations
from amg.graphs.context import Context
from amg.graphs.resources import Resources
from amg.tools.kg.records import RelationRecord
from amg.tools.kg.schema import RELATION_INVERSES, normalize_key, relation_type
from amg.tools.llm import confidence_maps
from amg.tools.llm.reader import Reader
from amg.tools.llm.structured import Usage
from amg.tools.llm.weights import LOCAL_MODELS
from benchmarks.report import emit

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "evaluation" / "data" / "extraction_pairs.jsonl"
SYMMETRIC = frozenset(t for t, inverse in RELATION_INVERSES.items() if t == inverse)
VERDICTS = {True: ("correct", "+"), False: ("incorrect", "-"), None: ("unlabelled", "?")}  # label -> count, mark


def load_pairs(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def relation_key(source: str, type_: str, target: str) -> tuple[str, str, str]:
    """(source key, type, target key): an inverse type read forwards, a symmetric type in name order."""
    rel_type, flipped = relation_type(type_)
    ends = (normalize_key(target), normalize_key(source)) if flipped else (normalize_key(source), normalize_key(target))
    if rel_type in SYMMETRIC:
        ends = tuple(sorted(ends))
    return ends[0], rel_type, ends[1]


def extract(item: dict, llm, model_name: str, keep_score: int, usage: Usage) -> list[RelationRecord] | None:
    """What the production scorer would write from the passage; None when the model gave no usable reply."""
    entity = {"key": normalize_key(item["entity"]), "name": item["entity"], "type": item["entity_type"]}
    record = {"id": f"textbook:{DATA.name}::{item['id']}", "kind": "textbook", "title": "", "snippet": item["passage"]}
    reply, _ = assess(
        entity,
        f"What is known about {item['entity']}?",
        others=[],
        records=[record],
        texts={record["id"]: item["passage"]},
        llm=llm,
        usage=usage,
    )
    if reply is None:
        return None
    kept, _, _ = grounded_relations(
        entity,
        reply,
        reader=Reader(llm, model_name, reliability=1.0, keep_score=keep_score),
        records=[record],
        aliases={},
        types={entity["key"]: entity["type"]},
    )
    return kept


def judge(item: dict, kept: list[RelationRecord]) -> tuple[Counter, list[str]]:
    """Counts for one passage (correct, incorrect, unlabelled, positives) and each kept relation marked."""
    labels = {relation_key(r["source"], r["type"], r["target"]): r["correct"] for r in item["relations"]}
    counts, lines = Counter(positives=sum(labels.values())), []
    for key in dict.fromkeys(relation_key(r.source, r.type, r.target) for r in kept):
        verdict, mark = VERDICTS[labels.get(key)]
        counts[verdict] += 1
        lines.append(f"{mark} {key[0]} -{key[1]}-> {key[2]}")
    return counts, lines


def wilson(k: int, n: int, z: float = 1.96) -> list[float] | None:
    """95% Wilson score interval of the proportion k / n (None when n = 0)."""
    if n == 0:
        return None
    p, z2 = k / n, z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return [round(centre - half, 3), round(centre + half, 3)]


def evaluate(items: list[dict], llm, model_name: str, keep_score: int) -> dict:
    """Run every passage through the scorer and match; the figures of the run (progress on stderr)."""
    usage, totals, started = Usage(), Counter(), time.perf_counter()
    for number, item in enumerate(items, 1):
        kept = extract(item, llm, model_name, keep_score, usage)
        counts, lines = judge(item, kept or [])
        totals.update(counts + Counter(unusable=kept is None))
        state = "no usable reply" if kept is None else " | ".join(lines) or "nothing kept"
        print(f"[{number}/{len(items)}] {item['id']}: {state}", file=sys.stderr, flush=True)
    matched = totals["correct"] + totals["incorrect"]
    return {
        "model": model_name,
        "passages": len(items),
        "pairs": sum(len(i["relations"]) for i in items),
        "positives": totals["positives"],
        "correct": totals["correct"],
        "incorrect": totals["incorrect"],
        "n_matched": matched,
        "precision": round(totals["correct"] / matched, 3) if matched else None,
        "ci95": wilson(totals["correct"], matched),
        "recall": round(totals["correct"] / totals["positives"], 3) if totals["positives"] else None,
        "unlabelled": totals["unlabelled"],
        "unusable_replies": totals["unusable"],
        "keep_score": keep_score,
        "calls": usage.llm_calls,
        "tokens": usage.tokens,
        "seconds": round(time.perf_counter() - started, 1),
    }


def dataset_id(path: Path) -> str:
    """The set's path in the repository and the start of its sha256, so a measurement names its data."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    name = path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else path
    return f"{name} (sha256 {digest})"


def write_reliability(figures: dict, dataset: str) -> Path:
    """Record the model's precision where ``extraction_reliability`` reads it; other models' entries stay."""
    path = confidence_maps.RELIABILITY
    table = json.loads(path.read_text()) if path.exists() else {}
    table[figures["model"]] = {
        "precision": figures["precision"],
        "n_matched": figures["n_matched"],
        "ci95": figures["ci95"],
        "dataset": dataset,
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "how": (
            f"benchmarks/extraction.py: relation_scoring prompt, grounding and keep score {figures['keep_score']} "
            f"on {figures['passages']} passages; precision = correct / (correct + incorrect) matched relations; "
            f"recall {figures['recall']}, {figures['unlabelled']} unlabelled"
        ),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(table, indent=2, sort_keys=True) + "\n")
    confidence_maps.extraction_reliability.cache_clear()  # this process reads the new figure too
    return path


def model_resources(model: str | None) -> Resources:
    """Resources on the embedded model ``0.5b``/``1.5b``, a model at OPENAI_BASE_URL, or the configured one."""
    context = Context()
    if model in LOCAL_MODELS:
        context = context.with_overrides(local_model=model, openai_base_url="")
    elif model:
        context = context.with_overrides(llm_model=model)
    return Resources(context)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help=f"{' | '.join(LOCAL_MODELS)} or a model name at OPENAI_BASE_URL")
    parser.add_argument("--data", type=Path, default=DATA, help="labelled passages (JSONL)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N passages (0 = all)")
    parser.add_argument("--write", action="store_true", help="record the precision for the model's served name")
    args = parser.parse_args(argv)
    items = load_pairs(args.data)[: args.limit or None]
    res = model_resources(args.model)
    try:
        figures = evaluate(items, res.llm, res.model_name, res.context.keep_score)
    finally:
        res.close()
    rows = [
        (name, figures[name])
        for name in (
            "model",
            "passages",
            "pairs",
            "positives",
            "correct",
            "incorrect",
            "precision",
            "ci95",
            "recall",
            "unlabelled",
            "unusable_replies",
            "calls",
            "seconds",
        )
    ]
    if args.write and figures["precision"] is not None:
        rows.append(("written to", str(write_reliability(figures, dataset_id(args.data)))))
    elif args.write:
        rows.append(("not written", "no extracted relation matched a labelled candidate"))
    emit(f"Relation-extraction precision ({figures['model']}, {args.data.name})", rows, figures)


if __name__ == "__main__":
    main()
