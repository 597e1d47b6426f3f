"""Readers for multiple-choice medical QA sets, into one item shape.

Item: {"id", "question", "options": {"A": ...}, "answer": "C", "subject"}, and "pmids" (the gold papers) when the
record has them. Formats:
- ours / MMLU-style JSONL: id, question, options (dict), answer (letter), subject;
- MedQA JSONL: question, options (dict), answer_idx (letter);
- MedMCQA JSON lines: id, question, opa..opd, cop (1-4; 0-3 when any record has 0), subject_name;
- PubMedQA JSON: {pmid: {QUESTION, CONTEXTS, final_decision}} -> options yes/no/maybe;
- SciFact claims JSONL: {id, claim, evidence: {doc_id: [{sentences, label}]}, cited_doc_ids} -> a claims set
  (``Dataset.kind`` "claims"): items {"id", "question": the claim, "options": {}, "answer": its verdict, "subject":
  "scifact", "evidence"} (evaluation/scifact_metrics.py scores them).
Malformed lines, unknown answer keys and duplicate ids are skipped and counted.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from amg.evaluation.scifact_metrics import gold_verdict

LETTERS = "ABCDEFGHIJ"


@dataclass
class Dataset:
    name: str
    items: list[dict]
    skipped: dict[str, int] = field(default_factory=lambda: {"malformed": 0, "unknown_answer": 0, "duplicate_id": 0})
    kind: str = "questions"  # or "claims" (SciFact's format): checked, not answered


def is_claim_record(record: dict) -> bool:
    """A line of SciFact's claims format: a claim and its evidence by abstract."""
    return "claim" in record and isinstance(record.get("evidence"), dict)


def _claim_item(record: dict) -> dict | None:
    """A SciFact claim as an item, or None when its evidence is not in SciFact's shape."""
    evidence = record["evidence"]
    try:
        entries = {
            str(int(doc)): [{"sentences": [int(i) for i in e["sentences"]], "label": e["label"]} for e in rationales]
            for doc, rationales in evidence.items()
        }
    except (TypeError, ValueError, KeyError):
        return None
    if any(e["label"] not in ("SUPPORT", "CONTRADICT") for es in entries.values() for e in es):
        return None
    return {
        "id": str(record.get("id", "")),
        "question": str(record.get("claim") or ""),
        "options": {},
        "answer": gold_verdict(entries),
        "subject": "scifact",
        "evidence": entries,
    }


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
        lettered = {letter: str(record.get(f"op{c}") or "") for letter, c in zip("ABCD", "abcd")}
        return {
            "id": str(record.get("id", number)),
            "question": str(record.get("question", "")),
            "options": lettered,
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
        candidates: Sequence[dict | None] = (
            _pubmedqa(raw) if all(isinstance(v, dict) and "QUESTION" in v for v in raw.values()) else []
        )
    else:
        records = _lines(path, dataset.skipped)
        if records and all(is_claim_record(r) for r in records[:20]):
            return _claims(dataset, records)
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


def _claims(dataset: Dataset, records: list[dict]) -> Dataset:
    dataset.kind, seen = "claims", set()
    for record in records:
        item = _claim_item(record) if is_claim_record(record) else None
        if item is None or not item["question"].strip() or not item["id"]:
            dataset.skipped["malformed"] += 1
        elif item["id"] in seen:
            dataset.skipped["duplicate_id"] += 1
        else:
            seen.add(item["id"])
            dataset.items.append(item)
    return dataset


def split_of(item: dict) -> str:
    """The claims' fixed split: an even id is for tuning, an odd one held out (ids that are not integers: by the
    parity of their characters' sum)."""
    ident = item["id"]
    number = int(ident) if ident.isdigit() else sum(map(ord, ident))
    return "tune" if number % 2 == 0 else "held-out"


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
