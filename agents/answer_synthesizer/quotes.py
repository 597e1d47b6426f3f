"""What each citation is cited for: the sentence of the cited item that states the claim (its ``quote``).

A cited item's sentences are its own text (a paper's abstract, conclusion first; a passage; a vocabulary
entry's title) and the relations it backs on the answer's paths, links and differential, read as words
("Metformin has adverse effect Diarrhea"), with the sentence each relation rests on. The answer's key
entities are the question entities it names, by name or alias, else the graph nodes it names, else all the
question entities. A sentence qualifies when it names a key entity, or is a relation whose two ends the
answer names apart; the quote is the qualifying sentence sharing most words with the answer and question
(the earlier on a tie: a paper's conclusion comes first). An item with no such sentence is not cited: the follow-up
"And its most common
side effect?" cited "CHEBI:16919 creatine" for "Nausea is the most common side effect of metformin".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from amg.tools.kg.pipeline_types import CandidateDiagnosis, EvidenceItem, GraphPath, Named, QuestionEntity, Said
from amg.tools.kg.records import EntityProps
from amg.tools.kg.schema import normalize_key
from amg.tools.kg.store.protocols import QAReads
from amg.tools.kg.traversal.ranking import verbalise

QUOTE_CHARS = 400
MIN_ALIAS_CHARS = 3  # "DM" or "AS" would be found in too many sentences
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")
_LABEL = re.compile(r"^[A-Z][A-Z ,/&-]{2,40}:\s+")  # an abstract's section label: "CONCLUSIONS: "
_STOP = {
    "the",
    "and",
    "for",
    "with",
    "that",
    "this",
    "from",
    "are",
    "was",
    "were",
    "which",
    "what",
    "its",
    "has",
    "have",
    "been",
    "into",
    "than",
    "their",
    "there",
    "not",
    "but",
    "can",
    "may",
    "who",
    "how",
    "does",
    "did",
}


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (not at "e.g. diarrhea"), section labels dropped."""
    flat = " ".join((text or "").split())
    return [_LABEL.sub("", s) for s in _SENTENCE_END.split(flat) if s.strip()]


def names(text: str, name: str) -> bool:
    """Whether ``text`` names ``name`` (case-, punctuation- and plural-insensitive, whole words)."""
    key = normalize_key(name)
    return bool(key) and f" {key} " in f" {normalize_key(text)} "


def with_aliases(
    entities: list[QuestionEntity], store: QAReads, *, ends: Sequence[str] = ()
) -> tuple[list[QuestionEntity], dict[str, list[str]]]:
    """The entities with their graph aliases (names a sentence may use instead: "Glucophage" for metformin), and the
    aliases of the nodes ``ends`` (the facts on the point's far ends), read from the graph in one go."""
    keys = list(dict.fromkeys([*(e["key"] for e in entities), *ends]))
    held = store.entities(keys) if keys else {}
    named: list[QuestionEntity] = [
        {
            **e,
            "aliases": [
                a for a in _aliases(held.get(e["key"])) if len(a) >= MIN_ALIAS_CHARS and re.search(r"[a-z]", a)
            ],
        }
        for e in entities
    ]
    return named, {k: _aliases(held[k]) for k in ends if k in held}


def _aliases(entity: EntityProps | None) -> list[str]:
    return (entity.get("aliases") if entity else None) or []


def key_entities(answer: str, entities: Sequence[Named], nodes: Sequence[GraphPath] = ()) -> list[Named]:
    """What the answer is about: the question entities it names (by name or alias), else the nodes of the
    subgraph it names ("Metformin." for a first-line drug), else all the question entities."""
    reached = [Named(key=n["key"], name=n["name"]) for n in nodes if n["depth"] > 0]
    return named_in(answer, entities) or named_in(answer, reached) or list(entities)


def named_in(answer: str, entities: Sequence[Named]) -> list[Named]:
    """The entities ``answer`` names, by name or alias."""
    return [e for e in entities if is_named(answer, e)]


def is_named(answer: str, entity: Named) -> bool:
    """Whether ``answer`` names ``entity``, by name or alias."""
    return any(names(answer, n) for n in _names_of(entity))


def _names_of(entity: Named) -> list[str]:
    return [entity.get("name") or entity["key"], *entity.get("aliases", [])]


def backing(
    nodes: Sequence[GraphPath], links: Sequence[Said], differential: Sequence[CandidateDiagnosis]
) -> list[Said]:
    """The relations the answer may rest on: the steps of its paths, the links and the differential's findings."""
    steps: list[Said] = [s for n in nodes for s in n["steps"]] + list(links)
    for c in differential:
        steps += [
            Said(
                source=f,
                relation="symptom_of",
                target=c["name"],
                evidence_ids=c.get("evidence_ids", []),
                description="",
            )
            for f in c.get("frequencies") or c.get("present", [])
        ]
    return steps


def candidates(item: EvidenceItem, steps: Sequence[Said]) -> list[tuple[str, tuple[str, str] | None]]:
    """(sentence, the relation's ends or None): the item's text, the relations it backs, then its title."""
    found: list[tuple[str, tuple[str, str] | None]] = [
        (s, None) for s in sentences(item.get("snippet") or item.get("lead") or "")
    ]
    for step in (s for s in steps if item["id"] in s["evidence_ids"]):
        ends = (step["source"], step["target"])
        found.append((f"{verbalise([step])}.", ends))
        found += [(s, ends) for s in sentences(step.get("description") or "")]
    found += [(s, None) for s in sentences(item.get("title") or "")]
    return list(dict.fromkeys(found))


def quoted(
    cited: list[int],
    evidence_index: list[EvidenceItem],
    *,
    steps: Sequence[Said],
    keys: Sequence[Named],
    answer: str,
    question: str,
    read: Sequence[int] = (),
) -> dict[int, str]:
    """Evidence number -> quote, for each cited item that has one (the others are not to be cited);
    ``keys``: the answer's key entities (``key_entities``).

    The studies ``read`` (a research question's paper) keep a quote without a key entity: their sentence
    closest to the question, the conclusion on a tie (an abstract is read conclusion first)."""
    by_n = {e["n"]: e for e in evidence_index}
    found: dict[int, str] = {}
    for n in (n for n in dict.fromkeys([*cited, *read]) if n in by_n):
        said = quote(by_n[n], steps, keys=keys, answer=answer, question=question) or (
            quote(by_n[n], steps, keys=keys, answer=answer, question=question, anywhere=True) if n in read else None
        )
        if said:
            found[n] = said
    return found


def quote(
    item: EvidenceItem,
    steps: Sequence[Said],
    *,
    keys: Sequence[Named],
    answer: str,
    question: str = "",
    anywhere: bool = False,
) -> str | None:
    """The sentence of ``item`` that states the answer's claim, or None when none names a key entity
    (with ``anywhere``, any sentence will do)."""
    wanted = _words(f"{answer} {question}")
    best, best_score = None, -1
    for sentence, ends in candidates(item, steps):
        if not (anywhere or names_key(sentence, keys) or _rests_on(ends, answer)):
            continue
        score = len(_words(sentence) & wanted)
        if score > best_score:
            best, best_score = sentence, score
    return _shorten(best) if best else None


def _rests_on(ends: tuple[str, str] | None, answer: str) -> bool:
    """Whether the answer names both ends of a relation, apart ("diabetes mellitus" is inside its subtype's name)."""
    if not ends or not all(names(answer, end) for end in ends):
        return False
    a, b = (f" {normalize_key(end)} " for end in ends)
    return a not in b and b not in a


def names_key(quote: str, keys: Sequence[Named]) -> bool:
    """Whether ``quote`` names one of the answer's key entities (by name or alias)."""
    return any(names(quote, n) for e in keys for n in _names_of(e))


def _words(text: str) -> set[str]:
    return {w for w in normalize_key(text).split() if len(w) > 2 and w not in _STOP}


def _shorten(text: str) -> str:
    return text if len(text) <= QUOTE_CHARS else text[:QUOTE_CHARS].rsplit(" ", 1)[0] + "..."
