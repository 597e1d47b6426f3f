"""Differential diagnosis and follow-up questions from the graph (after MedRAG).

The case is the question's phenotype entities and the HPO phenotypes its words name
(tools/phenotypes: synonyms, word order, morphology), a negated one ("no lens dislocation") absent,
plus the answers to earlier follow-up questions (present or absent). A question that names a
disease is not asking for one: no differential. Candidates come from the graph's HPO disease-phenotype annotations,
ranked by
tools/kg/traversal/differential.py, with subtypes folded into their disease; when the leading ones are
close, the 1-3 findings that together carry the most information are proposed as questions.
A finding the case already settles is never asked: one it states, an ancestor of one it has
("abnormality of the aorta" for an aortic root aneurysm) or a descendant of one it states
("multiple cafe-au-lait spots" for cafe-au-lait spots).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypedDict

from amg.tools.kg.pipeline_types import CandidateDiagnosis, FollowUp, QuestionEntity
from amg.tools.kg.schema import normalize_key
from amg.tools.kg.store.protocols import QAReads
from amg.tools.kg.store.rows import Annotation
from amg.tools.kg.traversal.differential import fold_subtypes, frequency_of, inherit, is_close, questions, rank
from amg.tools.phenotypes.lexicon import hpo_lexicon
from amg.tools.phenotypes.loose import loosely_read, misread
from amg.tools.phenotypes.recognizer import recognise
from amg.tools.question_kinds import describes_a_patient

CANDIDATE_POOL = 200
RANKED = 20  # candidates ranked before subtypes fold into their diseases
SHOWN = 5
ANCESTOR_LEVELS = 12  # the HPO is at most this deep
CASE_FINDINGS = 2  # findings that make a case without a patient in the text; the reasoner reads a differential
# only when its leader explains this many
FINER = 200  # a finding stands for its descendants in diseases' annotations unless it has more (a broad term)
_NEGATION = re.compile(r"\b(no|not|without|denies|absent|negative for)\b(?:\W+\w+){0,3}\W*$", re.IGNORECASE)
_EARLIER_ANSWER = re.compile(r"\nPrevious answer: .*\)\s*$", re.DOTALL)  # graphs/question.py's chat context


class Differential(TypedDict):
    """The diagnostician's state update: the candidates, best first, and the findings worth asking about."""

    differential: list[CandidateDiagnosis]
    follow_up: list[FollowUp]


def case_findings(
    entities: Sequence[QuestionEntity], text: str, answered: dict[str, bool]
) -> tuple[set[str], set[str]]:
    """(present, absent) finding keys: the phenotype entities and the phenotypes the text names, those it
    negates absent, then the answers to follow-up questions; a finding the text names loosely that the model's lay
    reading of the case (the entities read "lay") names otherwise is not one. The model's earlier answer is not the
    case."""
    said = recognise(_EARLIER_ANSWER.sub(")", text)) if text else []
    absent = {m.key for m in said if m.negated}
    wrong = misread(loosely_read(said), [e for e in entities if e.get("how") == "lay"])  # the model read them otherwise
    present = ({e["key"] for e in entities if e.get("type") == "phenotype"} | {m.key for m in said} - wrong) - absent
    present = (present | {k for k, v in answered.items() if v}) - {k for k, v in answered.items() if not v}
    present -= hpo_lexicon().keys_above(present)  # "freckling" says no more than "axillary freckling"
    return present, (absent - present) | {k for k, v in answered.items() if not v}


def is_case(differential: Sequence[CandidateDiagnosis]) -> bool:
    """Whether the differential rests on a case: its leader explains ``CASE_FINDINGS`` or more of the findings."""
    return bool(differential) and len(differential[0].get("frequencies", {})) >= CASE_FINDINGS


def differentiate(
    entities: Sequence[QuestionEntity], store: QAReads, *, answered: dict[str, bool], text: str = ""
) -> Differential:
    """State update: ``differential`` (candidates with probability and findings) and ``follow_up`` questions
    for the case in ``text`` (the question) and its ``entities``."""
    present, absent = case_findings(entities, text, answered)
    if not present or (not answered and any(e.get("type") == "disease" for e in entities)):
        return {"differential": [], "follow_up": []}  # no findings, or the question already names its disease
    if not answered and len(present) < CASE_FINDINGS and not describes_a_patient(text):
        # one finding asked about, not a patient's ("Which electrolyte disturbance causes peaked T waves?"): its
        # differential would tie every disease annotated with it; a patient with one finding is asked about more
        return {"differential": [], "follow_up": []}
    lexicon = hpo_lexicon()
    finer = {f: lexicon.keys_below(f, FINER) for f in present | absent}
    rows = store.disease_annotations({f: [f, *sorted(finer[f])] for f in sorted(present)}, CANDIDATE_POOL)
    annotations, names, finding_names = read_annotations(rows)
    annotations = inherit(annotations, finer)
    behind = {(row["disease"], row["finding"]): row.get("evidence_ids") or [] for row in rows}
    ranked = rank(annotations, names, present=present, absent=absent, limit=RANKED)
    candidates, annotations = fold_subtypes(ranked, annotations, store.parents([c.key for c in ranked]))
    candidates = candidates[:10]
    known = present | absent | implied_by(present, store) | lexicon.implied(present, absent)
    asked = questions(annotations, candidates, known=known) if is_close(candidates) else []
    label = {**finding_names, **{e["key"]: e["name"] for e in entities}, **lexicon.names(present | absent)}
    shown = [
        CandidateDiagnosis(
            key=c.key,
            name=c.name,
            probability=c.probability,
            present=[label.get(f, f) for f in c.present],
            absent=[label.get(f, f) for f in c.absent],
            subtypes=[names.get(k, k) for k in c.subtypes],
            frequencies={label.get(f, f): round(annotations[c.key].get(f, 0.0), 3) for f in c.present},
            evidence_ids=sorted({i for d in [c.key, *c.subtypes] for f in c.present for i in behind.get((d, f), [])}),
        )
        for c in candidates[:SHOWN]
    ]
    follow = [
        FollowUp(
            finding=f,
            name=label.get(f, f),
            question=f"Does the patient have {label.get(f, f).lower()}?",
            information_gain_bits=round(g, 3),
        )
        for f, g in asked
    ]
    return {"differential": shown, "follow_up": follow}


def implied_by(findings: set[str], store: QAReads) -> set[str]:
    """Every ancestor of ``findings`` in the is_a hierarchy: what having them already says."""
    seen: set[str] = set()
    level = set(findings)
    for _ in range(ANCESTOR_LEVELS):
        level = {p["key"] for ps in store.parents(sorted(level)).values() for p in ps} - seen if level else set()
        seen |= level
    return seen


def read_annotations(
    rows: list[Annotation],
) -> tuple[dict[str, dict[str, float]], dict[str, str], dict[str, str]]:
    """({disease: {finding: p(f | d)}}, disease names, finding names) from annotation rows."""
    annotations: dict[str, dict[str, float]] = {}
    names, finding_names = {}, {}
    for row in rows:
        annotations.setdefault(row["disease"], {})[row["finding"]] = frequency_of(row["confidence"])
        names[row["disease"]], finding_names[row["finding"]] = row["name"], row["finding_name"]
    return annotations, names, finding_names


def read_answers(message: str, follow_up: Sequence[FollowUp]) -> dict[str, bool]:
    """Findings the user's reply settles: {finding key: present?}; "unknown" settles nothing.

    Each asked finding the reply names, in any of its HPO words ("no lens dislocation" for ectopia
    lentis) or by the name asked, counts as present, or absent when negated; a reply that names none
    and starts with a bare "yes"/"no" answers a single question.
    """
    if not follow_up:
        return {}
    asked = {item["finding"] for item in follow_up}
    answers = {m.key: not m.negated for m in recognise(message) if m.key in asked}
    haystack = f" {normalize_key(message)} "
    for item in follow_up:
        name = normalize_key(item["name"])
        where = haystack.find(f" {name} ")
        if name and where >= 0 and item["finding"] not in answers:
            answers[item["finding"]] = not _NEGATION.search(haystack[:where])
    bare = re.match(r"^(yes|no|y|n)\b", message.strip().lower())
    if not answers and bare and len(follow_up) == 1:
        return {follow_up[0]["finding"]: bare.group(1).startswith("y")}
    return answers
