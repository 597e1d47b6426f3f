"""Readers for multiple-choice medical QA sets, into one item shape.

Item: {"id", "question", "options": {"A": ...}, "answer": "C", "subject"}, and "pmids" (the gold papers) when the
record has them. Formats:
- ours / MMLU-style JSONL: id, question, options (dict), answer (letter), subject;
- MedQA JSONL: question, options (dict), answer_idx (letter);
- MedMCQA JSON lines: id, question, opa..opd, cop (1-4; 0-3 when any record has 0), subject_name;
- PubMedQA JSON: {pmid: {QUESTION, CONTEXTS, final_decision}} -> options yes/no/maybe.
Malformed lines, unknown answer keys and duplicate ids are skipped and counted.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path

LETTERS = "ABCDEFGHIJ"


@dataclass
class Dataset:
    name: str
    items: list[dict]
    skipped: dict[str, int] = field(default_factory=lambda: {"malformed": 0, "unknown_answer": 0, "duplicate_id": 0})


def _lines(path: Path, skipped: dict) -> list[dict]:
    records = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            skipped["malformed"] += 1
            continue
        if isinstance(record, dict):
            records.append(record)
        else:
            skipped["malformed"] += 1
    return records


def _normalise(record: dict, number: int) -> dict | None:
    """One record in any supported format as an item, or None if it is not one."""
    if "opa" in record:  # MedMCQA
        options = {letter: str(record.get(f"op{c}") or "") for letter, c in zip("ABCD", "abcd")}
        return {
            "id": str(record.get("id", number)),
            "question": str(record.get("question", "")),
            "options": options,
            "answer": record.get("cop"),
            "subject": record.get("subject_name") or "medmcqa",
        }
    options = record.get("options")
    if isinstance(options, list):
        options = {LETTERS[i]: str(v) for i, v in enumerate(options)}
    if not isinstance(options, dict):
        return None
    answer = record.get("answer_idx", record.get("answer"))
    return {
        "id": str(record.get("id", number)),
        "question": str(record.get("question", "")),
        "options": {str(k).strip().upper(): str(v) for k, v in options.items()},
        "answer": str(answer).strip().upper() if answer is not None else None,
        "subject": record.get("subject") or record.get("meta_info") or "all",
        **({"pmids": [str(p) for p in record["pmids"]]} if isinstance(record.get("pmids"), list) else {}),
    }


def _pubmedqa(data: dict) -> list[dict]:
    items = []
    for pmid, record in data.items():
        decision = str(record.get("final_decision", "")).lower()
        context = " ".join(record.get("CONTEXTS", []))[:3000]
        items.append(
            {
                "id": str(pmid),
                "question": f"{record.get('QUESTION', '')}\nContext: {context}",
                "options": {"A": "yes", "B": "no", "C": "maybe"},
                "answer": {"yes": "A", "no": "B", "maybe": "C"}.get(decision),
                "subject": "pubmedqa",
                "pmids": [str(pmid)],
            }
        )
    return items


def load(path: Path) -> Dataset:
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such dataset file")
    dataset = Dataset(path.stem, [])
    text_start = path.read_text(encoding="utf-8", errors="replace")[:1].strip()
    if path.suffix == ".json" and text_start == "{":
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            raise ValueError(f"{path} is not valid JSON") from None
        candidates = _pubmedqa(raw) if all(isinstance(v, dict) and "QUESTION" in v for v in raw.values()) else []
    else:
        records = _lines(path, dataset.skipped)
        candidates = [_normalise(r, n) for n, r in enumerate(records)]
        if any(c and "opa" in r for c, r in zip(candidates, records)):
            zero_based = any(r.get("cop") == 0 for r in records if "opa" in r)
            for item in candidates:
                if item and isinstance(item["answer"], int):
                    index = item["answer"] - (0 if zero_based else 1)
                    item["answer"] = "ABCD"[index] if 0 <= index < 4 else None
    seen: set[str] = set()
    for item in candidates:
        if item is None or not item["question"].strip():
            dataset.skipped["malformed"] += 1
        elif item["answer"] not in item["options"]:
            dataset.skipped["unknown_answer"] += 1
        elif item["id"] in seen:
            dataset.skipped["duplicate_id"] += 1
        else:
            seen.add(item["id"])
            dataset.items.append(item)
    return dataset


def shuffled(item: dict, seed: int) -> dict:
    """The item with its option texts permuted (seeded per item), answer letter moved along."""
    rng = random.Random(f"{seed}:{item['id']}")
    letters = list(item["options"])
    texts = [item["options"][k] for k in letters]
    order = list(range(len(texts)))
    rng.shuffle(order)
    options = {letters[i]: texts[j] for i, j in enumerate(order)}
    answer = letters[order.index(letters.index(item["answer"]))]
    return {**item, "options": options, "answer": answer}
