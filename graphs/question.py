"""Turn raw input (chat messages or question + options) into a validated question, and carry a chat's topic.

A chat message is read with the previous turn only when its words lean on it (``refers_back``: a continuation, a
short question naming only an aspect such as the dose, a pronoun before anything it could stand for). One that
points back with "it", "its" or "this drug" at the one thing the previous turn was about is asked on its own ("And
its most common side effect?" after "What is metformin used for?" is "And metformin's most common side effect?"),
so the model reads it as it reads any question. Any other follow-up is read with the previous question and the
previous answer's own words (not its citations and glossary, whose names the vocabularies would take for the
question's entities), and its entities are the previous turn's topic first (the question entities that answer
named), then its own, so retrieval and citations stay on metformin, not only the wording.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from langchain_core.messages import AIMessage, HumanMessage

from amg.agents.answer_synthesizer.quotes import is_named
from amg.agents.query_parser import spot_entities
from amg.graphs.state import QAState
from amg.tools.kg.pipeline_types import QuestionEntity
from amg.tools.question_input import EMPTY_QUESTION, visible
from amg.tools.question_kinds import describes_a_patient

MAX_QUESTION_CHARS = 4000
MAX_OPTIONS = 10
_OPTION_LINE = re.compile(r"^\s*\(?([A-Ja-j])[.):]\s+(.+?)\s*$")
_SURROGATE = re.compile("[\ud800-\udfff]")  # what undecodable bytes become (surrogateescape)
_IT = re.compile(r"\b(it|its|itself)\b", re.IGNORECASE)
# the words "this …" / "that …" may use for a topic of each kind (an entity's type)
KIND_WORDS = {
    "drug": {"drug", "medication", "medicine", "treatment"},
    "disease": {"disease", "condition", "illness", "infection", "disorder", "syndrome"},
    "phenotype": {"symptom", "sign", "finding", "condition"},
}
# "it" as an empty subject ("is it possible to …", "it is likely that …") stands for nothing the turn was about
_EMPTY_IT = re.compile(r"\bit(?:\s+(?:is|was|would be|will be)|'s)?\s+\w+\s+(?:to|that|whether|if)\b", re.IGNORECASE)
_ANAPHOR = re.compile(r"\b(?:it|its|itself|they|them|their|this|these|those|he|she|his|her)\b", re.IGNORECASE)
_CONTINUATION = re.compile(r"\s*(?:and|but|or|so|also|then|what about|how about|what if|same for)\b", re.IGNORECASE)
FOLLOW_UP_WORDS = 8  # a longer message naming nothing the vocabularies know still asks a question of its own
# what one asks about a drug or a disease, never a subject of its own: "What are the side effects?" asks after one
ASPECTS = frozenset(
    {
        "side effect",
        "adverse effect",
        "adverse event",
        "dose",
        "dosage",
        "treatment",
        "therapy",
        "management",
        "diagnosis",
        "prognosis",
        "mechanism of action",
        "contraindication",
        "interaction",
        "complication",
        "symptom",
        "sign",
        "cause",
        "risk",
        "risk factor",
        "prevention",
        "cure",
        "test",
        "drug",
        "medication",
        "medicine",
    }
)
_PERSONAL = {"he", "she", "his", "her"}
TOPIC_ENTITIES = 2

Pairs = list[tuple[str, str]]


def split_options(text: str) -> tuple[str, Pairs]:
    """Options written as lines "A. ...", "B) ..." inside a chat message, and the rest."""
    lines, options = [], []
    for line in text.splitlines():
        match = _OPTION_LINE.match(line)
        if match:
            options.append((match.group(1).upper(), match.group(2)))
        else:
            lines.append(line)
    if len(options) < 2:
        return text, []
    return "\n".join(lines).strip(), options


def _text(message) -> str:
    content = message.content
    if isinstance(content, list):  # multimodal content blocks: keep the text parts
        content = " ".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def _always(said: str) -> bool:
    return True


def _given(state: QAState, leans_back: Callable[[str], bool] = _always) -> tuple[str, Pairs]:
    """The question and its (letter, text) options, from the last chat message or the question fields; a chat
    message is read with the previous turn only when ``leans_back`` says its words lean on it (``refers_back``)."""
    messages = state.get("messages") or []
    pairs = [(str(k).strip().upper(), str(v).strip()) for k, v in (state.get("options") or {}).items()]
    if not (messages and isinstance(messages[-1], HumanMessage)):
        return str(state.get("question") or ""), pairs
    question, inline = split_options(_text(messages[-1]))
    earlier = [m for m in messages[:-1] if isinstance(m, (HumanMessage, AIMessage))]
    if len(earlier) >= 2 and visible(question) and leans_back(question):
        said = answer_words(_text(earlier[-1]))
        before = _text(earlier[-2])
        alone = standalone(question, state.get("topic") or [], question=before, answer=said)
        question = alone or question + f"\n(Previous question: {before[:500]}\nPrevious answer: {said[:500]})"
    return question, pairs or inline


def standalone(follow_up: str, topic: list[QuestionEntity], *, question: str, answer: str) -> str | None:
    """``follow_up`` with its one reference back ("it", "its", "itself", or "this drug" / "that disease", a word for
    the topic's kind) replaced by the one thing the previous turn was about, in the words the conversation wrote it;
    None when that is not sure: another pronoun ("they", "her"), more than one reference, an empty "it" ("is it
    possible to"), a kind that is not the topic's ("this symptom" after a drug), no or two things the turn was about,
    or an answer that does not open on that thing. A reference tends to continue what the last sentence was about,
    its subject: after "What is the first-line drug for type 2 diabetes?" answered "Metformin is …", "its side
    effects" are metformin's though the question was about diabetes; there the model reads the follow-up with the
    previous turn and resolves it."""
    if len(topic) != 1 or _EMPTY_IT.search(follow_up):
        return None
    thing = topic[0]
    kinds = "|".join(sorted(KIND_WORDS.get(thing.get("type", ""), ())))
    pointer = re.compile(rf"\b(it|its|itself|(?:this|that) (?:{kinds})(?:'s)?)\b" if kinds else _IT.pattern, re.I)
    references = pointer.findall(follow_up)
    if len(references) != 1:
        return None
    taken = {m.start() for m in pointer.finditer(follow_up)}
    if any(m.start() not in taken for m in _ANAPHOR.finditer(follow_up)):
        return None
    names = [n for n in [thing.get("name") or thing["key"], *thing.get("aliases", []), thing["key"]] if n]
    opening = re.sub(r"^\W*(?:(?:the|a|an)\s+)?", "", answer, count=1, flags=re.IGNORECASE)
    opened = [m for n in names if (m := re.match(rf"{re.escape(n)}(?![\w-])", opening, re.IGNORECASE))]
    if not opened:
        return None
    asked = [re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", question, re.IGNORECASE) for n in names]
    words = next((m.group(0) for m in asked if m), opened[0].group(0))  # the user's spelling, else the answer's

    def replace(match: re.Match) -> str:
        said = match.group(1).lower()
        said = (
            f"{words}'s" if said == "its" or said.endswith("'s") else f"{words} itself" if said == "itself" else words
        )
        return said[0].upper() + said[1:] if follow_up[: match.start()].strip() == "" else said

    return pointer.sub(replace, follow_up)


def answer_words(reply: str) -> str:
    """The answer of a chat reply (graphs/reply.py), without its notes, confidence, citations and glossary."""
    lines = reply.split("\nConfidence: ", 1)[0].splitlines()
    return "\n".join(line for line in lines if not line.startswith("Note: ")).strip()


def refers_back(said: str, spot: Callable[[str], list[str]]) -> bool:
    """Whether a chat message's own words lean on the previous turn (``spot`` lists the keys of the entities a text
    names): it opens as a continuation ("And in children?", "What about pregnancy?"), names nothing of its own
    beyond an aspect of a topic ("What are the side effects?", "How long should treatment last?"), or has a pronoun
    before anything in the message it could stand for ("Does it interact with alcohol?"; not "A 60-year-old man with
    chest pain … He …", nor "Metformin: is it safe?")."""
    if _CONTINUATION.match(said) or (len(said.split()) <= FOLLOW_UP_WORDS and not _own(said, spot)):
        return True
    first = _ANAPHOR.search(said)
    if not first:
        return False
    before = said[: first.start()]
    person = first.group(0).lower() in _PERSONAL and describes_a_patient(before)
    return not (person or _own(before, spot))


def follows_on(said: str, linker) -> bool:
    """``refers_back``, with the entities the vocabularies (``linker``) find."""
    return refers_back(said, lambda text: [e["key"] for e in spot_entities(text, linker)])


def _own(text: str, spot: Callable[[str], list[str]]) -> list[str]:
    """The entities ``text`` names that are a subject of their own, not an aspect of one (``ASPECTS``)."""
    return [key for key in spot(text) if key not in ASPECTS] if text.strip() else []


def with_topic(entities: list[QuestionEntity], topic: list[QuestionEntity], limit: int) -> list[QuestionEntity]:
    """A follow-up's entities: the previous turn's topic first, then the parsed ones, each once."""
    kept = {e["key"]: e for e in [*topic, *entities]}
    return list(kept.values())[:limit]


def topic_of(entities: list[QuestionEntity], answer: str, named: list[QuestionEntity]) -> list[QuestionEntity]:
    """What a turn was about, for a follow-up: the question entities its answer names, else the other things the
    answer names (``named``: "Metformin." for a first-line drug), else the question's entities."""
    return ([e for e in entities if is_named(answer, e)] or named or entities)[:TOPIC_ENTITIES]


def _option_problem(pairs: Pairs) -> str | None:
    letters = [letter for letter, _ in pairs]
    bad = [letter for letter in letters if not re.fullmatch(r"[A-J]", letter)]
    if bad:
        return f"Option keys must be letters A-J; got {', '.join(bad)}."
    repeated = sorted({letter for letter in letters if letters.count(letter) > 1})
    if repeated:
        return f"Each option needs its own letter; {', '.join(repeated)} was given more than once."
    if len(pairs) > MAX_OPTIONS or not all(visible(text) for _, text in pairs):
        return "Options must be at most 10, each with text."
    return None


def prepare_question(
    state: QAState, leans_back: Callable[[str], bool] = _always
) -> tuple[str, dict[str, str], list[str], str | None]:
    """(question, options, notices, problem); ``problem`` is a readable reason to stop. ``leans_back``: whether a
    chat message's own words lean on the previous turn (without it, every message after the first is)."""
    question, pairs = _given(state, leans_back)
    question = question.strip()
    notices: list[str] = []
    if _SURROGATE.search(question) or any(_SURROGATE.search(text) for _, text in pairs):
        return "", {}, notices, "The input is not valid UTF-8 text; check the terminal's encoding (LANG)."
    problem = _option_problem(pairs)
    if problem:
        return question, {}, notices, problem
    options = dict(sorted(pairs))
    if not visible(question):
        if options:
            return "", options, notices, "Options were given without a question; please add the question."
        return "", {}, notices, EMPTY_QUESTION
    if len(question) > MAX_QUESTION_CHARS:
        notices.append(
            f"The question was {len(question):,} characters; only the first {MAX_QUESTION_CHARS:,} were used."
        )
        question = question[:MAX_QUESTION_CHARS]
    return question, options, notices, None
