"""Whether a message states a claim to check, the claim it states, and whether it is written in English.

A claim is a declarative statement about the world ("Vitamin D supplements prevent fractures in older adults",
"coffee is bad for your heart"), not a question, a request or a case: no question mark, no question word or request
verb at its head, no first-person or patient narrative ("my son has a fever", "a 45-year-old man presents with"),
3 to ``MAX_CLAIM_WORDS`` words, and a predicate (a copula, auxiliary or modal, or a verb of the kind claims use, in
any of its forms). An exam stem is not a claim either, though it reads as a statement: a statement left to
complete (it ends on a verb that needs its object, a preposition, a pronoun or a hedge: "The walls of bronchioles
contain", "… usually indicates intense competition between", "… is most likely"), one with a blank ("The ______ is
the set of observable characteristics") or one asking for "all of the following EXCEPT". Lay wordings that ask for
a check count whatever their punctuation ("Is it true that …?", "True or false: …", "Fact check: …", "I heard that
…"): the claim is what follows.
"""

from __future__ import annotations

import re

MAX_CLAIM_WORDS = 80
_CHECK_PREFIX = re.compile(
    r"^\s*(?:(?:is|was)\s+it\s+(?:really\s+)?(?:true|a\s+fact|a\s+myth|correct|right)\s+that|"
    r"true\s+or\s+false\s*[:,-]|fact[\s-]*check\s*[:,-]?|claim\s*:|check\s*(?::|whether|if|that)|"
    r"(?:i|we)\s+(?:have\s+)?(?:heard|read|was\s+told|were\s+told)\s+that|"
    r"(?:they|people|some\s+say|my\s+\w+)\s+(?:say|says|said|claim|claims)\s+that)\s*",
    re.IGNORECASE,
)
_QUESTION_HEAD = re.compile(
    r"^\s*(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|could|should|will|would|"
    r"has|have|may|might|must|shall)\b",
    re.IGNORECASE,
)
_REQUEST_HEAD = re.compile(
    r"^\s*(?:please|explain|describe|list|tell|give|show|compare|define|summari[sz]e|find|name|help|outline|"
    r"discuss|search|look|check|let|thanks|thank|hello|hi|match|choose|select|complete|fill)\b",
    re.IGNORECASE,
)
# a patient's story or the speaker's own: a case for the differential, not a claim about the world
_NARRATIVE = re.compile(
    r"\b(?:i'm|i've|me|my|we|our|us)\b|\bi\s+(?:am|have|had|was|think|feel|take|took|got|get|need|want|know|use)\b|"
    r"\d+[- ](?:year|month|week|day)[- ]old|\bpresents?\s+with\b|"
    r"\b(?:the|this|a|our|your)\s+patient\b|\bhe\s+has\b|\bshe\s+has\b",
    re.IGNORECASE,
)
_AUXILIARIES = frozenset(
    "is are was were be been being isn't aren't wasn't weren't has have had hasn't haven't does do did doesn't "
    "don't didn't can cannot can't could may might will won't would should shouldn't must".split()
)
_VERBS = (
    "cause prevent reduce increase decrease improve worsen lower raise treat cure protect lead induce inhibit promote "
    "trigger affect predict associate correlate link help harm kill boost weaken strengthen slow block activate "
    "suppress enhance impair regulate mediate require lack contain produce express bind depend result contribute "
    "alter change delay shorten extend prolong elevate drop fall rise double halve outperform exceed need make give "
    "stop spread work fail damage heal fight remove destroy cut keep avoid reverse control modulate confer occur "
    "develop accelerate precede share show reveal indicate suggest become remain seem appear benefit relieve ease "
    "lessen limit restore repair promote stimulate attenuate abolish exacerbate aggravate mitigate counteract "
    "upregulate downregulate enable drive determine reflect involve play act serve cross enter target interact "
    "differ vary decline deplete accumulate persist recur respond resist survive die live age grow shrink spread "
    "exhibit receive possess participate generate encode repress consist identify permit impede influence go stem "
    "constitute allow form yield display undergo mimic sustain maintain elicit localize recruit cleave secrete "
    "transport account attribute arise derive originate correspond compete facilitate hinder hamper underlie"
).split()
# endings only verbs have ("metabolizes", "deactivated", "amplifies"), for verbs no list names
_VERB_ENDINGS = ("izes", "ises", "yzes", "ates", "ifies", "ized", "ised", "yzed", "ated", "ified")
_IRREGULAR = frozenset(
    "led made gave took fell rose grew kept brought drove won lost held ran met saw got went".split()
)


def _forms(stem: str) -> set[str]:
    forms = {stem, f"{stem}s", f"{stem}es", f"{stem}ed", f"{stem}d"}
    if stem.endswith("y"):
        forms |= {f"{stem[:-1]}ies", f"{stem[:-1]}ied"}
    if stem.endswith("e"):
        forms.add(f"{stem[:-1]}ed")
    if re.search(r"[^aeiou][aeiou][bdglmnprt]$", stem):  # stop -> stopped, drop -> dropped
        forms.add(f"{stem}{stem[-1]}ed")
    return forms


_PREDICATES = _AUXILIARIES | _IRREGULAR | {form for stem in _VERBS for form in _forms(stem)}
_DANGLING = frozenset(
    "the a an of by is are was to with and or because than for in on at as from which that between into about through "
    "during within without against among toward towards via upon like such whose whether if when where while they it "
    "its their them these those both his her most".split()
)
# verbs that need their object: a statement ending on one is left to complete ("Smoking causes", "… contain")
_TRANSITIVE = (
    "contain require include cause involve lack need utilize use produce possess exhibit express encode indicate "
    "suggest show reveal expect display undergo yield make give generate receive resemble mimic affect target "
    "inhibit bind comprise represent prevent"
).split()
# its present forms only: a participle ends a passive claim ("Metformin is widely used")
_UNFINISHED = frozenset(
    form
    for stem in _TRANSITIVE
    for form in (stem, f"{stem}s", f"{stem}es", f"{stem[:-1] if stem.endswith('e') else stem}ing")
)
_HEDGE_END = re.compile(r"\bmost\s+(?:likely|probably|often|commonly)\W*$", re.IGNORECASE)
_BLANK = re.compile(r"_{2,}")
_EXAM_STEM = re.compile(r"\b(?:[Oo]f\s+the\s+following|EXCEPT)\b")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?:])\s+")
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


def checked_claim(text: str) -> str:
    """The statement a message asks to check: the text after a checking phrase ("Is it true that …?"), without its
    final question mark; else the message itself."""
    text = " ".join(text.split())
    head = _CHECK_PREFIX.match(text)
    if head:
        text = text[head.end() :].rstrip("?").strip()
    return text


def _sole_predicate(words: list[str]) -> bool:
    """Whether the last of ``words`` (a sentence's) is its verb, not a noun after it ("… inhibits NTP binding"): no
    other predicate comes before it but its own auxiliary ("are utilizing")."""
    before = [w for w in words[1:-1] if w in _PREDICATES or w.endswith(_VERB_ENDINGS)]
    return not before or (before == [words[-2]] and words[-2] in _AUXILIARIES)


def states_claim(text: str) -> bool:
    """Whether ``text`` (a message without options) states a claim to check: see the module docstring."""
    said = " ".join(text.split())
    asks_check = bool(_CHECK_PREFIX.match(said))
    claim = checked_claim(said)
    if not asks_check and ("?" in claim or _QUESTION_HEAD.match(claim) or _REQUEST_HEAD.match(claim)):
        return False
    words = _WORD.findall(claim.lower())
    if not 3 <= len(words) <= MAX_CLAIM_WORDS or _NARRATIVE.search(claim):
        return False
    last = claim.split()[-1].strip(".,;!").lower()
    if claim.rstrip().endswith((":", "…", "...", "_")) or last in _DANGLING or _HEDGE_END.search(claim):
        return False  # a statement left to complete ("The longest bone in the body is the"): an exam item
    if last in _UNFINISHED and _sole_predicate(_WORD.findall(_SENTENCE_BREAK.split(claim)[-1].lower())):
        return False  # its verb waits for its object ("The walls of bronchioles contain")
    if _BLANK.search(claim) or _EXAM_STEM.search(claim):
        return False  # a blank to fill, or "all of the following EXCEPT": an exam item
    if any(_REQUEST_HEAD.match(sentence) for sentence in _SENTENCE_BREAK.split(claim)[1:]):
        return False  # "… Match the stage of mitosis with its component": a task, not a claim
    return any(word in _PREDICATES or word.endswith(_VERB_ENDINGS) for word in words[1:])


# function words of other languages that English text does not use (so "de novo" or "la" alone decide nothing)
_FOREIGN = {
    "French": "les des du de est une dans pour sur avec sont pas qui ne aux ces cette chez plus et le la",
    "Spanish": "los las del de es una para con por son que más este esta sus el y la",
    "German": "der die das und ist ein eine nicht mit von zu den dem für auf im sind bei oder",
    "Italian": "il lo gli dei delle è una per con non che di da del della sono nel",
    "Portuguese": "os do da de dos das é um uma para com não que em na são por",
}
_ENGLISH = frozenset("the of and is are in to with for that not by on from be has have than or does do".split())


def other_language(text: str) -> str | None:
    """The language ``text`` seems written in when it is not English ("French", "another script"), else None."""
    letters = [c for c in text if c.isalpha()]
    if letters and sum(ord(c) < 0x250 for c in letters) < 0.5 * len(letters):
        return "another script"
    words = set(re.findall(r"[^\W\d_]+", text.lower()))
    english = len(words & _ENGLISH)
    hits = {language: len(words & set(said.split())) for language, said in _FOREIGN.items()}
    language, count = max(hits.items(), key=lambda pair: pair[1])
    return language if count >= 2 and count > english else None
