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
from dataclasses import dataclass, replace
from typing import TypedDict

from amg.tools.kg.pipeline_types import (
    CandidateDiagnosis,
    DiagnosisLevels,
    FollowUp,
    QuestionEntity,
    SimilarPatient,
)
from amg.tools.kg.records import EntityProps
from amg.tools.kg.schema import normalize_key
from amg.tools.kg.store.protocols import QAReads
from amg.tools.kg.store.rows import Annotation
from amg.tools.kg.traversal.differential import (
    Candidate,
    blend,
    fold_subtypes,
    frequency_of,
    inherit,
    is_close,
    pool,
    questions,
    rank,
)
from amg.tools.phenotypes.lexicon import hpo_lexicon
from amg.tools.phenotypes.loose import loosely_read, misread
from amg.tools.phenotypes.recognizer import recognise
from amg.tools.question_kinds import describes_a_patient
from amg.tools.records.similarity import PatientIndex, Similar

CANDIDATE_POOL = 200
RANKED = 20  # candidates ranked before subtypes fold into their diseases
SHOWN = 5
ANCESTOR_LEVELS = 12  # the HPO is at most this deep
CASE_FINDINGS = 2  # findings that make a case without a patient in the text; the reasoner reads a differential
# only when its leader explains this many
FINER = 200  # a finding stands for its descendants in diseases' annotations unless it has more (a broad term)
# the records' half (stored patients, tools/records), chosen on the fit halves of the phenopackets and DDXPlus dev cases
# (the vote weight and temperature, for the leader's probability to mean what it says: ECE 0.070 phenopackets, 0.040
# DDXPlus full cases, 0.129 DDXPlus chief complaints, docs/records.md)
SIMILAR = 3  # similar patients shown, and whose diagnoses vote
PATIENT_POOL = 30  # the most similar patients whose diagnoses join the candidates
PRIOR_PATIENTS = 2.0  # the knowledge's frequency counts as this many patients beside the stored ones
VOTE_WEIGHT = 4.0  # how much the similar patients' vote weighs beside the frequencies, times their mean similarity
VOTE_FLOOR = 0.01  # a candidate no similar patient has keeps this share of a vote
TEMPERATURE = 2.0  # the pooled log-score is divided by this before it is normalised (calibration)
_NEGATION = re.compile(r"\b(no|not|without|denies|absent|negative for)\b(?:\W+\w+){0,3}\W*$", re.IGNORECASE)
_EARLIER_ANSWER = re.compile(r"\nPrevious answer: .*\)\s*$", re.DOTALL)  # graphs/question.py's chat context


class Differential(TypedDict):
    """The diagnostician's state update: the candidates, best first, the findings worth asking about, and the stored
    patients most like the case."""

    differential: list[CandidateDiagnosis]
    follow_up: list[FollowUp]
    similar: list[SimilarPatient]


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


@dataclass(frozen=True, kw_only=True)
class CaseDiagnosis:
    """A case's diagnosis from both halves: candidates best first (subtypes folded), the similar patients, the
    follow-up findings worth asking, and what was needed to show them."""

    present: set[str]
    absent: set[str]
    ranked: list[Candidate]  # every candidate, best first, subtypes apart (what a benchmark scores by disease id)
    candidates: list[Candidate]
    similar: list[Similar]
    asked: list[tuple[str, float]]
    annotations: dict[str, dict[str, float]]
    names: dict[str, str]
    labels: dict[str, str]
    behind: dict[tuple[str, str], list[str]]


def diagnose(
    entities: Sequence[QuestionEntity],
    store: QAReads,
    *,
    answered: dict[str, bool],
    text: str = "",
    index: PatientIndex | None = None,
    exclude: frozenset[str] = frozenset(),
    only: frozenset[str] | None = None,
    unaskable: frozenset[str] = frozenset(),
) -> CaseDiagnosis | None:
    """The case in ``text`` (the question) and its ``entities`` diagnosed from the graph's disease-phenotype
    annotations and, with stored patients (``index``; ``exclude``: ids not to find, e.g. the case's own record), the
    most similar patients: their diagnoses join the candidates, their findings' frequencies blend with the
    knowledge's, and their vote weighs in. ``only``: the diagnoses to choose among (a benchmark's candidate list);
    ``unaskable``: findings never put as a follow-up question (a grade on a scale). None when the text is no case."""
    present, absent = case_findings(entities, text, answered)
    if not present or (not answered and any(e.get("type") == "disease" for e in entities)):
        return None  # no findings, or the question already names its disease
    if not answered and len(present) < CASE_FINDINGS and not describes_a_patient(text):
        # one finding asked about, not a patient's ("Which electrolyte disturbance causes peaked T waves?"): its
        # differential would tie every disease annotated with it; a patient with one finding is asked about more
        return None
    lexicon = hpo_lexicon()
    finer = {f: lexicon.keys_below(f, FINER) for f in present | absent}
    rows = store.disease_annotations({f: [f, *sorted(finer[f])] for f in sorted(present)}, CANDIDATE_POOL)
    annotations, names, finding_names = read_annotations(rows)
    annotations = inherit(annotations, finer)
    behind = {(row["disease"], row["finding"]): row.get("evidence_ids") or [] for row in rows}
    similar: list[Similar] = []
    votes: dict[str, float] = {}
    strength = 0.0  # how alike the voting patients are to the case (their mean similarity, 0..1)
    if index is not None and len(index):
        similar = index.similar(present, absent, k=PATIENT_POOL, exclude=set(exclude))
        votes = _votes(similar[:SIMILAR])
        strength = sum(p.score for p in similar[:SIMILAR]) / SIMILAR
        counts = index.frequencies(sorted({d for p in similar for d in p.diagnoses} | set(annotations)), present)
        annotations = blend(
            annotations,
            {d: (c.patients, c.present) for d, c in counts.items()},
            findings=present,
            prior_patients=PRIOR_PATIENTS,
        )
        unnamed = [d for d in annotations if d not in names]
        names.update({k: e.get("name") or k for k, e in store.entities(unnamed).items()} if unnamed else {})
        names.update({k: index.names.get(k, k) for k in annotations if k not in names})
    if only is not None:
        annotations = {d: f for d, f in annotations.items() if d in only}
        votes = {d: v for d, v in votes.items() if d in only}
    ranked = rank(annotations, names, present=present, absent=absent, limit=CANDIDATE_POOL)
    ranked = pool(
        ranked,
        annotations,
        case=(present, absent),
        votes=votes,
        weight=VOTE_WEIGHT * strength,  # patients sharing little with the case vote little
        floor=VOTE_FLOOR,
        temperature=TEMPERATURE,
    )
    top = [replace(c) for c in ranked[:RANKED]]  # folding changes what it folds
    candidates, annotations = fold_subtypes(top, annotations, store.parents([c.key for c in top]))
    candidates = candidates[:10]
    known = present | absent | implied_by(present, store) | lexicon.implied(present, absent) | unaskable
    asking = annotations
    if index is not None and len(index) and is_close(candidates):  # what the stored patients say of every finding
        keys = [c.key for c in candidates]
        askable = {f for k in keys for f in annotations.get(k, {})} | index.features_of(keys)
        counts = index.frequencies(keys, askable)
        asking = blend(
            annotations,
            {d: (c.patients, c.present) for d, c in counts.items()},
            findings=askable,
            prior_patients=PRIOR_PATIENTS,
        )
    asked = questions(asking, candidates, known=known) if is_close(candidates) else []
    labels = {**finding_names, **{e["key"]: e["name"] for e in entities}, **lexicon.names(present | absent)}
    return CaseDiagnosis(
        present=present,
        absent=absent,
        ranked=ranked,
        candidates=candidates,
        similar=similar[:SIMILAR],
        asked=asked,
        annotations=annotations,
        names=names,
        labels=labels,
        behind=behind,
    )


def differentiate(
    entities: Sequence[QuestionEntity],
    store: QAReads,
    *,
    answered: dict[str, bool],
    text: str = "",
    index: PatientIndex | None = None,
    exclude: frozenset[str] = frozenset(),
) -> Differential:
    """State update: ``differential`` (candidates with probability and findings), ``follow_up`` questions and, with
    stored patients, the ``similar`` ones (``diagnose``)."""
    case = diagnose(entities, store, answered=answered, text=text, index=index, exclude=exclude)
    if case is None:
        return {"differential": [], "follow_up": [], "similar": []}
    label, names = case.labels, case.names
    shown = [
        CandidateDiagnosis(
            key=c.key,
            name=c.name,
            probability=c.probability,
            present=[label.get(f, f) for f in c.present],
            absent=[label.get(f, f) for f in c.absent],
            subtypes=[names.get(k, k) for k in c.subtypes],
            frequencies={label.get(f, f): round(case.annotations[c.key].get(f, 0.0), 3) for f in c.present},
            evidence_ids=sorted(
                {i for d in [c.key, *c.subtypes] for f in c.present for i in case.behind.get((d, f), [])}
            ),
            patients=[p.id for p in case.similar if {c.key, *c.subtypes} & set(p.diagnoses)],
        )
        for c in case.candidates[:SHOWN]
    ]
    follow = [
        FollowUp(
            finding=f,
            name=label.get(f, f),
            question=f"Does the patient have {label.get(f, f).lower()}?",
            information_gain_bits=round(g, 3),
        )
        for f, g in case.asked
    ]
    like = [
        SimilarPatient(
            id=p.id,
            similarity=p.score,
            diagnoses=[names.get(d, d) for d in p.diagnoses],
            shared=[label.get(f, f) for f in p.shared],
            contradicted=[label.get(f, f) for f in p.contradicted],
        )
        for p in case.similar
    ]
    return {"differential": shown, "follow_up": follow, "similar": like}


def _votes(similar: list) -> dict[str, float]:
    """{diagnosis: share}: the similar patients' diagnoses, weighted by similarity."""
    votes: dict[str, float] = {}
    for patient in similar:
        for d in patient.diagnoses:
            votes[d] = votes.get(d, 0.0) + patient.score / max(len(patient.diagnoses), 1)
    total = sum(votes.values())
    return {d: v / total for d, v in votes.items()} if total > 0 else {}


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


@dataclass(frozen=True, kw_only=True)
class Levels:
    """A diagnosis at three levels, as MedRAG names them: the ICD-10 chapter (category), its block (subcategory),
    and the disease; ``code`` is the ICD-10-CM code they were read from ("" when none was found)."""

    category: str
    subcategory: str
    disease: str
    code: str


_ICD = re.compile(r"ICD-10-CM ([A-Z]\d{2}(?:\.\w{1,4})?)$")
_CHAPTER = re.compile(r"ICD-10-CM \d{1,2}$")
_BLOCK = re.compile(r"\(([A-Z]\d\w)-([A-Z]\d\w{1,2})\)$")
LEVEL_HOPS = 3  # is_a steps looked up from a disease for one that carries an ICD-10-CM code


def levels(keys: list[str], names: dict[str, str], store: QAReads) -> dict[str, Levels]:
    """Each disease's category (ICD-10 chapter) and subcategory (block), through the ICD-10-CM code it carries, or
    the nearest is_a ancestor's, and the graph's ICD-10-CM hierarchy (code -> block -> chapter)."""
    codes = _codes(keys, store)
    wanted = sorted({c for c in codes.values() if c})
    found = store.lookup([normalize_key(f"ICD-10-CM {c}") for c in wanted]) if wanted else {}
    out = {}
    for key in keys:
        code = codes.get(key, "")
        node = next(iter(found.get(normalize_key(f"ICD-10-CM {code}"), [])), None) if code else None
        block, chapter = _block_and_chapter(node["key"], store) if node else ("", "")
        out[key] = Levels(category=chapter, subcategory=block, disease=names.get(key, key), code=code)
    return out


def with_levels(differential: list[CandidateDiagnosis], store: QAReads) -> list[CandidateDiagnosis]:
    """The differential's candidates, each with its ``levels`` (category, subcategory, disease, ICD-10-CM code)."""
    if not differential:
        return differential
    found = levels([c["key"] for c in differential], {c["key"]: c["name"] for c in differential}, store)
    out = []
    for c in differential:
        at = found[c["key"]]
        shown = DiagnosisLevels(category=at.category, subcategory=at.subcategory, disease=at.disease, code=at.code)
        out.append(CandidateDiagnosis(**c, levels=shown))
    return out


def _codes(keys: list[str], store: QAReads) -> dict[str, str]:
    """{disease key: its ICD-10-CM code}, the shortest of its own, else the nearest ancestor's."""
    codes: dict[str, str] = {}
    frontier = {k: k for k in keys}  # node -> the disease it was reached from
    for _ in range(LEVEL_HOPS + 1):
        entities = store.entities(sorted(frontier))
        for node, disease in frontier.items():
            own = sorted(
                (m.group(1) for a in _aliases(entities, node) if (m := _ICD.match(a))),
                key=lambda c: (len(c), c),
            )
            if own and disease not in codes:
                codes[disease] = own[0]
        left = {n: d for n, d in frontier.items() if d not in codes}
        if not left:
            break
        parents = store.parents(sorted(left))
        frontier = {p["key"]: d for n, d in left.items() for p in parents.get(n, []) if p.get("type") == "disease"}
    return codes


def _aliases(entities: dict[str, EntityProps], key: str) -> list[str]:
    entity = entities.get(key)
    return list(entity.get("aliases") or []) if entity is not None else []


def _block_and_chapter(code_key: str, store: QAReads) -> tuple[str, str]:
    block = chapter = ""
    level = [code_key]
    for _ in range(4):
        parents = store.parents(level)
        level = [p["key"] for ps in parents.values() for p in ps]
        if not level:
            break
        entities = store.entities(level)
        for key in level:
            name = entities[key]["name"] if key in entities else key
            if any(_CHAPTER.match(a) for a in _aliases(entities, key)):
                chapter = chapter or name
            elif _BLOCK.search(name):
                block = block or name
    return block, chapter
