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


def confidence_kind(question: str, options: dict[str, str] | None) -> str:
    """The kind of questions whose map calibrates this one's confidence (tools/llm/confidence_maps.py): "exam" or
    "research" with options; without, "open", or "research-open" when it asks whether a claim holds (a
    yes / no answer on a study the model is surer of than of an open exam answer)."""
    kind = question_kind(question, options)
    return kind if options else ("research-open" if kind == "research" else "open")
