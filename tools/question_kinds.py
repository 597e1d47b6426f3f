"""What kind of question a message asks, decided once per turn (graphs/qa_graph.py ``prepare``) and kept in the state.

"claim": it states a claim to check against the literature, without options ("Vitamin D supplements prevent fractures
in older adults", "Is it true that …?": tools/claim_wording.py); "research": it asks whether a study's claim holds
(yes / no / maybe options, or an open question opening with a verb, or whose part after a colon does: "Cushing's
disease: can we predict outcome?"); "exam": anything else.
The kind chooses the route (a research question may send itself to the literature), how the answer reads its
evidence, and which measured map calibrates its confidence.
"""

from __future__ import annotations

import re

from amg.tools.claim_wording import states_claim

_ASKS_WHETHER = re.compile(
    r"^\s*(?:is|are|was|were|do|does|did|can|could|should|will|would|has|have|may|might|must|shall)\b", re.IGNORECASE
)
# a title's question after its colon: "Short-stay wards in children's hospitals: are they effective?" (not a case's
# last sentence: "A boy has ectopia lentis. Could this be Marfan syndrome?" stays with the differential and its map)
_TITLE_COLON = re.compile(r"[:;]")
_VERDICTS = {"yes", "no", "maybe"}


def is_research_question(question: str, options: dict[str, str] | None) -> bool:
    """Whether ``question`` asks if a claim holds: yes / no (/ maybe) options, or open and opening with a verb,
    or its part after a colon does ("Cushing's disease: can we predict the outcome of surgery?")."""
    if options:
        said = {text.strip().strip(".").lower() for text in options.values()}
        return {"yes", "no"} <= said <= _VERDICTS
    return bool(_ASKS_WHETHER.match(question) or _ASKS_WHETHER.match(_TITLE_COLON.split(question.strip())[-1]))


def question_kind(question: str, options: dict[str, str] | None) -> str:
    """ "claim", "research" or "exam": whether ``question`` states a claim to check, asks if a study's claim holds,
    or asks anything else."""
    if not options and states_claim(question):
        return "claim"
    return "research" if is_research_question(question, options) else "exam"


def confidence_kind(kind: str, options: dict[str, str] | None) -> str:
    """The kind of questions whose map calibrates an answer's confidence (tools/llm/confidence_maps.py): ``kind``
    ("exam" or "research") with options; without, "open", or "research-open" for a research question (a yes / no
    answer on a study the model is surer of than of an open exam answer)."""
    return kind if options else ("research-open" if kind == "research" else "open")


# what an open question asks for, as the relations (read from the thing the question names) whose other end answers
# it: "Which drug treats gout?" asks for gout's "treated_by"; "What is metformin used for?" for metformin's "treats"
_ASKS = (
    (
        r"\b(?:treat\w*|therap\w*|drugs? of choice|first[- ]line|manag\w*|medication|used (?:for|to|in)|indicat\w*)",
        ("treated_by", "treats"),
    ),
    (
        r"\b(?:caus\w*|due to|results? (?:from|in)|aetiolog\w*|etiolog\w*|responsible for|deficien\w*|lead(?:s)? to)",
        ("caused_by", "causes", "has_risk_factor", "risk_factor_for"),
    ),
    (r"\b(?:side[- ]effects?|adverse|toxicit\w*|complications?)\b", ("has_adverse_effect", "has_complication")),
    (
        r"\b(?:symptoms?|signs?|present(?:s|ing|ation)?|manifest\w*|features?|findings?|characteri[sz]\w*)\b",
        ("has_symptom", "symptom_of"),
    ),
    (r"\b(?:prevent\w*|prophyla\w*)", ("prevented_by", "prevents")),
    (r"\bcontraindicat\w*", ("contraindicated_with",)),
    (r"\binteract\w*", ("interacts_with",)),
    (r"\b(?:diagnos\w*|tests?|confirm\w*|screen\w*)\b", ("diagnosed_by", "diagnoses")),
    (r"\b(?:genes?|mutations?|inherit\w*|chromosom\w*)\b", ("has_associated_gene", "gene_associated_with")),
    (r"\b(?:where|located|site|which (?:organ|nerve|artery|vein|muscle|bone|part))\b", ("located_in", "part_of")),
    (r"\b(?:class(?:es)?|type of|kind of|belongs? to|mechanism|acts? (?:by|on)|inhibit\w*)\b", ("is_a", "has_role")),
)
ASKS = tuple((re.compile(pattern, re.IGNORECASE), frozenset(relations)) for pattern, relations in _ASKS)


# a question about a person: a case whose findings the differential reads ("A 15-year-old boy has ...", "my
# daughter's fingers are ..."), as opposed to a question about a drug, a disease or a mechanism
_PATIENT = re.compile(
    r"\b(?:\d+[- ](?:year|month|week|day)s?[- ]old|patient|man|woman|boy|girl|child|infant|baby|newborn|toddler|"
    r"teenager|adolescent|he|she|his|her|my (?:son|daughter|wife|husband|mother|father|child|baby|partner))\b",
    re.IGNORECASE,
)


# a case's question that asks what the patient has: "what is it?", "the most likely diagnosis", "which syndrome"
# ("How is the diagnosis confirmed?" asks for a test, "What is it used for?" for a use: neither)
_DIAGNOSIS = re.compile(
    r"\bwhat(?:'s| is) (?:it|this)\s*\?|\bwhat(?:'s| is) wrong\b|"
    r"\b(?:likely|probable|what is the|which) diagnos[ie]s\b|"
    r"\bwhat (?:does|do|might|could) (?:he|she|they|the patient) have\b|"
    r"\bwhich (?:disease|condition|disorder|syndrome)\b",
    re.IGNORECASE,
)


def asks_for_diagnosis(question: str) -> bool:
    """Whether ``question`` asks what a patient has (a differential's leader would answer it)."""
    return bool(_DIAGNOSIS.search(question))


def describes_a_patient(question: str) -> bool:
    """Whether ``question`` describes a person, whose findings may be told in everyday words."""
    return bool(_PATIENT.search(question))


def asked_relations(question: str) -> frozenset[str]:
    """The relations whose far end would answer ``question`` (as read from the entity it names); empty when the
    wording asks for none of them ("Which nerve is injured in wrist drop?")."""
    return frozenset(relation for pattern, relations in ASKS if pattern.search(question) for relation in relations)
