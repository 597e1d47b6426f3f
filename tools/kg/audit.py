"""``amg kg audit``: how confident the graph is, by origin and model, and what breaks the grounding rules.

Model-written relations are checked again (tools/kg/grounding.py): evidence present and stored,
specific endpoints, a cited item whose stored text names both, an end its sentence only refers to
named right before that sentence (not for a study's finding, whose sentence may state a result
without naming its ends), endpoint types that fit the relation; model-written descriptions must
not echo the prompt. ``fix`` marks what breaks a rule
as weakened: confidence 0, the reason in its history; nothing is deleted. Earlier versions wrote relations these rules
now refuse; the
audit is how an existing data dir is cleaned.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from amg.tools.kg.grounding import (
    echoes,
    is_generic,
    mentions,
    sentence_problem,
    signature_problem,
    with_sentence_before,
)
from amg.tools.kg.schema import RELATIONS
from amg.tools.kg.store.protocols import AuditStore
from amg.tools.kg.store.rows import ConfidenceCount, ExtractedRelation

PAGE = 2000
FINDINGS = frozenset(r.name for r in RELATIONS if r.finding)  # the finding reader's, read from a result


class OriginProfile(TypedDict):
    """The relations of one origin and model: how many, their mean confidence, how many per tenth, how many weakened."""

    n: int
    mean: float
    tenths: list[int]
    weakened: int


class RelationViolation(TypedDict):
    what: Literal["relation"]
    s: str
    t: str
    type: str
    confidence: float
    evidence_ids: list[str]
    model: str | None
    reason: str


class DescriptionViolation(TypedDict):
    what: Literal["description"]
    key: str
    reason: str


@dataclass
class AuditReport:
    profile: dict[str, OriginProfile] = field(default_factory=dict)  # by "origin / model"
    relations_checked: int = 0
    descriptions_checked: int = 0
    violations: list[RelationViolation | DescriptionViolation] = field(default_factory=list)
    fixed: int = 0


def audit(store: AuditStore, echo_sources: Sequence[str], fix: bool = False) -> AuditReport:
    report = AuditReport(profile=_profile(store.confidence_profile()))
    skip = 0
    while page := store.extracted_relations(skip, PAGE):
        skip += len(page)
        report.relations_checked += len(page)
        texts = {
            e["id"]: f"{e.get('title') or ''} {e.get('snippet') or ''}"
            for e in store.evidence(sorted({i for r in page for i in r["evidence_ids"]}))
        }
        for row in page:
            reason = relation_problem(row, texts)
            if reason:
                report.violations.append(
                    RelationViolation(
                        what="relation",
                        s=row["s"],
                        t=row["t"],
                        type=row["type"],
                        confidence=row["confidence"],
                        evidence_ids=row["evidence_ids"],
                        model=row["model"],
                        reason=reason,
                    )
                )
    skip = 0
    while descriptions := store.learned_descriptions(skip, PAGE):
        skip += len(descriptions)
        report.descriptions_checked += len(descriptions)
        report.violations += [
            DescriptionViolation(what="description", key=row["key"], reason="echoes the prompt")
            for row in descriptions
            if echoes(row["description"], echo_sources)
        ]
    if fix and report.violations:
        relations = [v for v in report.violations if v["what"] == "relation"]
        keys = [v["key"] for v in report.violations if v["what"] == "description"]
        store.weaken(relations, keys, "audit: breaks a grounding rule")
        report.fixed = len(relations) + len(keys)
    return report


def relation_problem(row: ExtractedRelation, texts: dict[str, str]) -> str | None:
    """Why a stored model-written relation breaks a grounding rule, or None."""
    if not row["evidence_ids"]:
        return "no evidence"
    missing = [i for i in row["evidence_ids"] if i not in texts]
    if missing:
        return f"evidence not stored: {', '.join(missing[:3])}"
    for name in (row["source"], row["target"]):
        if is_generic(name):
            return f"{name!r} is not a specific medical entity"
    source, target = [row["source"], *row["source_aliases"]], [row["target"], *row["target_aliases"]]
    if not any(mentions(texts[i], source) and mentions(texts[i], target) for i in row["evidence_ids"]):
        return "no cited item names both entities"
    sentence = row.get("sentence") or ""
    if row["type"] not in FINDINGS:  # where the sentence is found in a cited item: is each end named near it?
        near = [n for n in (with_sentence_before(texts[i], sentence) for i in row["evidence_ids"]) if n]
        missing = [names[0] for names in (source, target) if near and not any(mentions(n, names) for n in near)]
        if missing:
            return f"neither its sentence nor the one before names {missing[0]!r}"
    return signature_problem(row["type"], row.get("source_type"), row.get("target_type")) or sentence_problem(
        row["type"], sentence
    )


def _profile(rows: list[ConfidenceCount]) -> dict[str, OriginProfile]:
    grouped: dict[str, _Tally] = defaultdict(lambda: _Tally(n=0, total=0.0, tenths=[0] * 11, weakened=0))
    for row in rows:
        entry = grouped[f"{row['origin']} / {row['model'] or '-'}"]
        entry["n"] += row["n"]
        entry["total"] += row["total"]
        entry["tenths"][min(max(row["tenth"], 0), 10)] += row["n"]
        entry["weakened"] += row["n"] if row["status"] == "weakened" else 0
    return {
        k: OriginProfile(n=v["n"], mean=round(v["total"] / v["n"], 2), tenths=v["tenths"], weakened=v["weakened"])
        for k, v in sorted(grouped.items())
    }


class _Tally(TypedDict):
    n: int
    total: float
    tenths: list[int]
    weakened: int
