"""What a claim check teaches the graph: each paper it read, kept with the sentences the stance step was shown and
linked to the claim's entities, and for each paper that took a side its findings read from the two sentences
likeliest to settle the claim (those quoted, and the next likeliest when only one was), every one kept with those
sentences and the paper's id (``quotes``), so the next check of the claim, or of a related one, reads them offline
(agents/claim_checker/from_graph.py), and a paper whose findings had no grounds to be written is read again all the
same.

One short model call per paper: a line "<sentence number> | <subject> | <relation> | <object>" per finding, at most
``MAX_FINDINGS``, so a paper that states several findings gives several. The sentence is named by its number, not
copied, so it is the abstract's own word for word. Grounds as the finding reader's (agents/finding_reader/): a
study-result relation, ends the sentence, the abstract or the claim names, neither generic; an end holding a claim
entity's name is written as that entity. Confidence = the model's measured extraction reliability x the paper's
stance probability.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from amg.agents.claim_checker.paper import ClaimPaper
from amg.agents.claim_checker.settling import quoted
from amg.agents.finding_reader.ends import (
    comparison_arm,
    content_words,
    end_named,
    head_of,
    named_words,
    on_question_entities,
)
from amg.agents.finding_reader.reader import graph_entities
from amg.agents.learned import Learned
from amg.prompts import load
from amg.tools.kg.grounding import is_generic
from amg.tools.kg.pipeline_types import Named
from amg.tools.kg.records import EvidenceRecord, Quote, RelationRecord
from amg.tools.kg.schema import FINDINGS, relation_type
from amg.tools.kg.store.protocols import ExpansionWrites
from amg.tools.llm.conversation import talk
from amg.tools.llm.structured import Usage

MAX_FINDINGS = 3
LEARNED_FROM = 2
FINDING_TOKENS = 120
_FINDING_TYPES = {r.name for r in FINDINGS}


def finding_lines(said: str, sentences: dict[int, str]) -> list[tuple[int, str, str, str]]:
    """(sentence number, subject, relation, object) of each usable line of ``said``; ``sentences`` are the ones shown
    ({number: text}). A line may open as a list item ("- 9 | ..."). A small model often numbers its lines 1, 2, 3
    instead of by sentence: a line whose number is not a shown sentence's is given to the shown sentence that names
    most of its subject's and object's words, and dropped when none names any."""
    found = []
    for line in said.splitlines():
        parts = [p.strip().strip("*`<>\"'") for p in line.split("|")]
        head = parts[0].lstrip("-*\u2022 \t").strip("[](). ")
        if len(parts) != 4 or not head.isdigit() or not all(parts[1:]):
            continue
        number = int(head) if int(head) in sentences else naming_sentence(f"{parts[1]} {parts[3]}", sentences)
        if number is not None:
            found.append((number, parts[1], parts[2], parts[3]))
    return found[:MAX_FINDINGS]


def naming_sentence(ends: str, sentences: dict[int, str]) -> int | None:
    """The number of the sentence of ``sentences`` that names most of the content words of ``ends`` (the earliest on
    a tie), or None when none names any."""
    words = named_words(ends)
    shared = {n: len(words & content_words(text)) for n, text in sentences.items()}
    best = max(shared.values(), default=0)
    return next((n for n, k in shared.items() if k == best), None) if best else None


def grounded(
    line: tuple[int, str, str, str],
    claim: str,
    *,
    paper: ClaimPaper,
    entities: Sequence[Named],
    confidence: float,
    model: str,
) -> tuple[RelationRecord | None, str | None]:
    """The finding ``line`` as a relation to write with the paper's settling sentences, or None and why not."""
    number, subject, relation, obj = line
    rel_type, flipped = relation_type(relation)
    if rel_type not in _FINDING_TYPES:
        return None, f"{relation!r} is not a study finding"
    first, second = (obj, subject) if flipped else (subject, obj)
    ends = (head_of(first), head_of(second))
    if comparison_arm(ends[0]):
        return None, f"{ends[0]!r} is the comparison arm, not what was tested"
    text_of = {s["n"]: s["text"] for s in paper["sentences"]}
    said = content_words(f"{paper.get('title') or ''} {' '.join(text_of.values())} {claim}")
    for name in ends:
        if not end_named(name, said):
            return None, f"neither the paper nor the claim names {name!r}"
    source, target = on_question_entities(ends, entities)
    for name in (source, target):
        if is_generic(name):
            return None, f"{name!r} is not a specific subject or outcome"
    quotes = [Quote(paper=paper["id"], n=n, text=text_of[n]) for n in read_from(paper)]
    try:
        record = RelationRecord(
            source,
            target,
            type=rel_type,
            confidence=round(confidence, 3),
            evidence_ids=[paper["id"]],
            score_raw=None,
            description=text_of[number][:500],
            origin=paper.get("kind") or "pubmed",
            model=model,
            quotes=quotes,
        )
    except ValueError as exc:
        return None, str(exc)
    return record, None


def read_from(paper: ClaimPaper) -> list[int]:
    """The numbers of the sentences a side-taking ``paper``'s findings are read from and kept with: the
    ``LEARNED_FROM`` shown likeliest to settle the claim, whether or not the second was likely enough to be quoted (a
    finding and its result are often two sentences, and one sentence gave a fifth as many grounded findings), with any
    quoted sentence not among them."""
    text_of = {s["n"]: s["text"] for s in paper["sentences"]}
    likeliest = quoted(paper.get("shown") or [], limit=LEARNED_FROM, likely=0.0) if paper.get("rationale") else []
    return sorted(n for n in {*likeliest, *paper.get("rationale", [])} if n in text_of)


def learn_claim_paper(
    claim: str,
    entities: Sequence[Named],
    *,
    paper: ClaimPaper,
    llm,
    model_name: str,
    reliability: float,
    store: ExpansionWrites,
) -> Learned:
    """Keep ``paper`` (a stance result with its ``sentences``, ``shown`` and ``rationale``) with the sentences the
    stance step read, linked to the claim's entities, and, when it took a side, read and write its findings."""
    usage = Usage()
    text_of = {s["n"]: s["text"] for s in paper["sentences"]}
    entities_kept, evidence_kept = graph_entities(entities), [kept_paper(paper)]
    supports = [(e["key"], paper["id"]) for e in entities]
    numbers = read_from(paper)
    if paper["stance"] == "neither" or not numbers:
        store.upsert(entities=entities_kept, evidence=evidence_kept, supports=supports)
        return {"new_relations": [], "refused": [], **usage.as_update()}
    prompt = load("claim_findings").format(
        claim=claim,
        title=paper.get("title") or "",
        sentences="\n".join(f"[{n}] {text_of[n]}" for n in numbers),
        relations="\n".join(f"  - {r.name}" + (f" ({r.hint})" if r.hint else "") for r in FINDINGS),
    )
    said, _ = talk(llm, [], text=prompt, usage=usage, max_tokens=FINDING_TOKENS)
    confidence = reliability * max(paper["probabilities"].get(paper["stance"], 1.0), 0.0)
    records: list[RelationRecord] = []
    refused: list[str] = []
    for line in finding_lines(said, {n: text_of[n] for n in numbers}):
        record, problem = grounded(line, claim, paper=paper, entities=entities, confidence=confidence, model=model_name)
        if record is None:
            refused.append(f"finding of {paper['id']}: {problem}")
        else:
            records.append(record)
    ends = [(key, paper["id"]) for r in records for key in (r.source, r.target)]
    store.upsert(entities=entities_kept, evidence=evidence_kept, relations=records, supports=[*ends, *supports])
    if not records:
        return {
            "new_relations": [],
            "refused": refused or [f"finding of {paper['id']}: no usable line"],
            **usage.as_update(),
        }
    new = [r.learned("description", "quotes") for r in records]
    return {"new_relations": new, "refused": refused, **usage.as_update()}


def kept_paper(paper: ClaimPaper) -> EvidenceRecord:
    """``paper`` as the graph keeps it: its metadata, its text, and the sentences the stance step was shown."""
    text_of = {s["n"]: s["text"] for s in paper["sentences"]}
    return EvidenceRecord(
        id=paper["id"],
        kind=paper.get("kind") or "pubmed",
        title=paper.get("title") or "",
        snippet=" ".join(text_of.values())[:1500],
        year=paper.get("year"),
        pmid=paper.get("pmid"),
        doi=paper.get("doi"),
        url=paper.get("url"),
        sentences=[json.dumps({"n": s["n"], "text": s["text"]}, sort_keys=True) for s in paper.get("shown") or []],
    )
