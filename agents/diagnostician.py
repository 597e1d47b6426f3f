"""Differential diagnosis and follow-up questions from the graph (after MedRAG).

The case is the question's phenotype entities (present) plus the answers to earlier follow-up
questions (present or absent). A question that names a disease is not asking for one: no
differential. Candidates come from the graph's HPO disease-phenotype annotations, ranked by
tools/kg/differential.py, with subtypes folded into their disease; when the leading ones are
close, the 1-3 findings that together carry the most information are proposed as questions.
A finding the case already implies (an ancestor of one it has: "abnormality of the aorta"
for an aortic root aneurysm) is never asked.
"""

from __future__ import annotations

import re
from dataclasses import asdict

from amg.tools.kg.differential import fold_subtypes, frequency_of, is_close, questions, rank
from amg.tools.kg.schema import normalize_key
from amg.tools.kg.store import QAReads

CANDIDATE_POOL = 200
RANKED = 20  # candidates ranked before subtypes fold into their diseases
SHOWN = 5
ANCESTOR_LEVELS = 12  # the HPO is at most this deep
_NEGATION = re.compile(r"\b(no|not|without|denies|absent|negative for)\b(?:\W+\w+){0,3}\W*$", re.IGNORECASE)


def differentiate(entities: list[dict], store: QAReads, answered: dict[str, bool]) -> dict:
    """State update: ``differential`` (candidates with probability and findings) and ``follow_up`` questions."""
    present = {e["key"] for e in entities if e.get("type") == "phenotype"} | {k for k, v in answered.items() if v}
    absent = {k for k, v in answered.items() if not v}
    if not present or (not answered and any(e.get("type") == "disease" for e in entities)):
        return {"differential": [], "follow_up": []}  # no findings, or the question already names its disease
    rows = store.disease_annotations(sorted(present), CANDIDATE_POOL)
    annotations, names, finding_names = read_annotations(rows)
    behind = {(row["disease"], row["finding"]): row.get("evidence_ids") or [] for row in rows}
    ranked = rank(annotations, names, present, absent, limit=RANKED)
    candidates, annotations = fold_subtypes(ranked, annotations, store.parents([c.key for c in ranked]))
    candidates = candidates[:10]
    known = present | absent | implied_by(present, store)
    asked = questions(annotations, candidates, known) if is_close(candidates) else []
    label = {**finding_names, **{e["key"]: e["name"] for e in entities}}
    shown = [{**asdict(c), "present": [label.get(f, f) for f in c.present], "absent": [label.get(f, f) for f in c.absent],
              "subtypes": [names.get(k, k) for k in c.subtypes],
              "frequencies": {label.get(f, f): round(annotations[c.key].get(f, 0.0), 3) for f in c.present},
              "evidence_ids": sorted({i for d in [c.key, *c.subtypes] for f in c.present for i in behind.get((d, f), [])})}
             for c in candidates[:SHOWN]]  # fmt: skip
    follow = [{"finding": f, "name": label.get(f, f), "question": f"Does the patient have {label.get(f, f).lower()}?",
               "information_gain_bits": round(g, 3)} for f, g in asked]  # fmt: skip
    return {"differential": shown, "follow_up": follow}


def implied_by(findings: set[str], store: QAReads) -> set[str]:
    """Every ancestor of ``findings`` in the is_a hierarchy: what having them already says."""
    seen, level = set(), set(findings)
    for _ in range(ANCESTOR_LEVELS):
        level = {p["key"] for ps in store.parents(sorted(level)).values() for p in ps} - seen if level else set()
        seen |= level
    return seen


def read_annotations(rows: list[dict]) -> tuple[dict[str, dict[str, float]], dict[str, str], dict[str, str]]:
    """({disease: {finding: p(f | d)}}, disease names, finding names) from annotation rows."""
    annotations: dict[str, dict[str, float]] = {}
    names, finding_names = {}, {}
    for row in rows:
        annotations.setdefault(row["disease"], {})[row["finding"]] = frequency_of(row["confidence"])
        names[row["disease"]], finding_names[row["finding"]] = row["name"], row["finding_name"]
    return annotations, names, finding_names


def read_answers(message: str, follow_up: list[dict]) -> dict[str, bool]:
    """Findings the user's reply settles: {finding key: present?}; "unknown" settles nothing.

    A bare "yes"/"no" answers a single question; otherwise each asked finding named in the reply
    counts as present, or absent when a negation ("no", "without", "denies") stands just before it.
    """
    text = message.strip().lower()
    bare = re.match(r"^(yes|no|y|n)\b", text)
    if bare and len(follow_up) == 1:
        return {follow_up[0]["finding"]: bare.group(1).startswith("y")}
    answers = {}
    haystack = f" {normalize_key(message)} "
    for item in follow_up:
        name = normalize_key(item["name"])
        where = haystack.find(f" {name} ")
        if name and where >= 0:
            answers[item["finding"]] = not _NEGATION.search(haystack[:where])
    return answers
