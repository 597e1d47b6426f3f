"""Agent 6, reasoner: chain of thought per question entity over its traversed subgraph.

Builds the numbered evidence list the answer cites, then reasons over the edges between
question entities, the leading candidates of a case's differential (two or more findings),
each entity's description and its best-ranked paths (the paper's c_i):
all entities in one call by default, one call per entity in paper-faithful mode, where each
entity's context also carries its neighbours' descriptions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NotRequired, TypedDict

from amg.agents.answer_synthesizer.agreement import sampled_answers
from amg.agents.answer_synthesizer.answer_lines import ask_answer
from amg.agents.diagnostician import is_case
from amg.agents.finding_reader.reader import FINDING_NAMES
from amg.prompts import load, quote
from amg.tools.kg.pipeline_types import (
    Asked,
    CandidateDiagnosis,
    EvidenceItem,
    Found,
    GraphPath,
    Link,
    QuestionEntity,
    read_by_a_model,
    withdrawn,
)
from amg.tools.kg.records import EvidenceFields
from amg.tools.kg.store.protocols import QAReads
from amg.tools.kg.traversal.ranking import verbalise
from amg.tools.llm.conversation import Turn, request, talk
from amg.tools.llm.structured import Usage, UsageUpdate

MAX_EVIDENCE = 12
MAX_VOCABULARY = 4
MAX_PATHS_PER_ENTITY = 5
MAX_PATHS = 10  # in all: a local model reads its context slowly, and most curated paths are noise
# per call: a short chain of thought. Generation dominates local latency, and longer chains did not answer better
# (docs/architecture.md)
REASONING_TOKENS = 48
DESCRIPTION_CHARS = 240  # a local model reads its context slowly: keep each piece short
NEIGHBOUR_CHARS = 100
MAX_LINKS = 8
DIFFERENTIAL_SHOWN = 3
SNIPPET_CHARS = 200
LEAD_CHARS = 700  # of the best evidence fetched for the question, read at length
RATIONALE_CHARS = 300
FINDING_CHARS = 300  # the sentence a learned step was read from (a finding's, with its population)
# identifiers in a vocabulary entry's title (D009399, HP:0001234, MONDO:0005148) and MeSH tree numbers: ~15 tokens
# each that tell a model nothing (the citation shown to the reader keeps them)
_CITED = re.compile(r"\s*\[\d+(?:\s*[,-]\s*\d+)*\]")
_CODES = re.compile(r"\s*\((?:[A-Z]\d{2}[\d.]*(?:,\s*)?)+\)|\b(?:[A-Za-z]+:)?[A-Z]{0,6}\d{4,}\b")
_EMPTY = re.compile(r"\s*\([\s,]*\)")
NO_REASONING = "reasoner: no reasoning (the endpoint rejected the request or replied with nothing); answered without it"


class Draft(TypedDict, total=False):
    """An open question's answer by the model alone (``draft_answer``): its words, its tokens' likelihood and
    their first and least likely (p_*), the confidence it stated, the conversation that made it, and the short
    answers sampled beside it. ``draft_answer`` gives every field; the state holds {} for a turn without a draft
    (graphs/state.py), hence total=False."""

    answer: str
    likelihood: float | None
    tokens: dict[str, float]
    stated: float
    dialogue: list[Turn]
    samples: list[str]


class DraftUpdate(UsageUpdate):
    draft: NotRequired[Draft]
    degradations: NotRequired[list[str]]


class Reasoning(UsageUpdate):
    """The reasoner's state update: its reasoning ({entity name: text}, "all" in joint mode), its conclusion (joint
    mode), the conversation with the reasoning turn."""

    reasoning: dict[str, str]
    rationale: NotRequired[str]
    dialogue: list[Turn]
    degradations: NotRequired[list[str]]


def shown_paths(nodes: list[GraphPath]) -> dict[str, list[GraphPath]]:
    """Per question entity (by key), its best-ranked paths that are not hidden: the ones the model gets to see.

    At most ``MAX_PATHS_PER_ENTITY`` each and ``MAX_PATHS`` in all, taken in rounds: every entity's
    best path, then every entity's second best, and so on (within a round the most relevant first).
    """
    by_seed: dict[str, list[GraphPath]] = {}
    visible = (n for n in nodes if n["depth"] > 0 and not n["hidden"])
    for node in sorted(visible, key=lambda n: (n["rank"], -n["score"])):
        by_seed.setdefault(node["seed_key"], []).append(node)
    rounds = sorted(
        (
            (place, -node.get("relevance", 0.0), seed)
            for seed, paths in by_seed.items()
            for place, node in enumerate(paths[:MAX_PATHS_PER_ENTITY])
        )
    )[:MAX_PATHS]
    chosen = {(seed, place) for place, _, seed in rounds}
    return {
        seed: [n for place, n in enumerate(paths) if (seed, place) in chosen]
        for seed, paths in by_seed.items()
        if (seed, 0) in chosen
    }


def spoken(node: GraphPath) -> str:
    """A path as the reasoner reads it: words and the path's confidence ("Metformin treats T2DM (0.90)").

    Half the tokens of the arrow notation, which repeated every edge's confidence. A step a model read from
    evidence adds its sentence (a study's finding, its population too): "improves" alone does not say by how
    much, or in whom, nor "has adverse effect Hypoglycemia" that the textbook said "rarely causes hypoglycemia"."""
    return (
        f"{verbalise(node['steps'])} ({node['score']:.2f})"
        + (" [weak]" if node["weak"] else "")
        + _stated_words(node["steps"])
    )


def _stated_words(steps: list[Link]) -> str:
    said = [s["description"] for s in steps if s.get("description") and read_by_a_model(s)]  # not a curated entry's
    return "".join(f': "{shorten(d, FINDING_CHARS)}"' for d in said)


def number_evidence(
    nodes: list[GraphPath],
    fetched: Sequence[EvidenceFields],
    *,
    store: QAReads,
    links: Sequence[Link] = (),
    differential: Sequence[CandidateDiagnosis] = (),
    shown: dict[str, list[GraphPath]] | None = None,
) -> list[EvidenceItem]:
    """The evidence the answer may cite, numbered from 1.

    Evidence fetched for this question first (``fetched`` records, which may not be stored yet),
    then literature behind the leading candidates of a case's differential, the links between
    question entities and the shown paths (strongest first), then at most a few
    curated-vocabulary entries. ``shown``: the shown paths per entity when the caller has them (the QA graph computes
    them once, in its traversal), else they are chosen from ``nodes`` here.
    """
    case = list(differential)[:DIFFERENTIAL_SHOWN] if is_case(list(differential)) else []
    on_paths: list[str] = [i for c in case for i in c.get("evidence_ids", [])]
    on_paths += [i for link in links[:MAX_LINKS] for i in link["evidence_ids"]]
    paths_of = shown if shown is not None else shown_paths(nodes)
    for node in sorted((n for paths in paths_of.values() for n in paths), key=lambda n: -n["score"]):
        for step in node["steps"]:
            on_paths.extend(step["evidence_ids"])
    candidates = list(dict.fromkeys([r["id"] for r in fetched] + on_paths))
    found: dict[str, EvidenceFields] = {r["id"]: r for r in fetched}
    for stored in store.evidence(candidates) if candidates else []:  # the graph's, with a status fetched too
        held = found.get(stored["id"])
        status = stored.get("status") or (held.get("status") if held else None)
        if status:
            stored = {**stored, "status": status}
        found[stored["id"]] = stored
    literature = [i for i in candidates if i in found and found[i]["kind"] != "vocabulary"]
    vocabulary = [i for i in candidates if i in found and found[i]["kind"] == "vocabulary"][:MAX_VOCABULARY]
    chosen = (literature + vocabulary)[:MAX_EVIDENCE]
    return [EvidenceItem(n=n, **found[i]) for n, i in enumerate(chosen, 1)]


def with_lead_text(evidence_index: list[EvidenceItem], texts: dict[str, str]) -> list[EvidenceItem]:
    """The best-ranked evidence fetched for this question (the first of ``texts`` in the index) is read at
    length: no relation from it is in the graph yet, and its answer is often past the first lines
    (the demo's metformin section names the side effects in its fourth sentence)."""
    lead = next((e["id"] for e in evidence_index if e["id"] in texts), None)
    return [{**e, "lead": shorten(texts[e["id"]], LEAD_CHARS)} if e["id"] == lead else e for e in evidence_index]


def with_stored_lead(evidence_index: list[EvidenceItem], links: Sequence[Link] = ()) -> list[EvidenceItem]:
    """A research question answered from what the graph kept (nothing fetched for it): the paper its strongest
    study finding rests on is read at length from the text stored with it, as the best match fetched would be
    (``with_lead_text``), not from a 200-character snippet: the graph keeps what re-reading the abstract finds."""
    if any(e.get("lead") for e in evidence_index):
        return evidence_index
    papers = [e["n"] for e in evidence_index if e.get("pmid") and e.get("snippet")]
    chosen = studies_read(evidence_index, links)[:1] or papers[:1]
    return [
        {**e, "lead": shorten(e["snippet"], LEAD_CHARS)} if e["n"] in chosen and e.get("snippet") else e
        for e in evidence_index
    ]


def shorten(text: str, limit: int) -> str:
    """``text`` on one line, cut at a word boundary to at most ``limit`` characters (with "...")."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit].rsplit(" ", 1)[0] + "..."


def _refs(evidence_ids: list[str], number: dict[str, int]) -> str:
    refs = sorted({number[i] for i in evidence_ids if i in number})
    return (" " + "".join(f"[{r}]" for r in refs)) if refs else ""


def entity_contexts(
    entities: Sequence[QuestionEntity],
    nodes: list[GraphPath],
    *,
    evidence_index: list[EvidenceItem],
    neighbours: bool = False,
    shown: dict[str, list[GraphPath]] | None = None,
) -> dict[str, str]:
    """Per question entity, its description and paths with evidence numbers ("" when the graph has none).

    Entities are matched to the graph by key, so "metformin" finds "Metformin"; with ``neighbours``
    each path's end node adds its description. The paths chosen by relevance are listed strongest first, as
    the prompt asks them weighed: a small model answers with the first listed ("And its most common side
    effect?" took a weak "Hypoglycemia" listed above a stronger "Diarrhea").
    """
    number = {e["id"]: e["n"] for e in evidence_index}
    seeds = {n["key"]: n for n in nodes if n["depth"] == 0}
    paths_of = shown if shown is not None else shown_paths(nodes)
    contexts = {}
    for entity in entities:
        own = seeds.get(entity["key"])
        lines = [f"Entity: {entity['name']} ({entity['type']})"]
        if own and own["description"]:
            lines.append(f"Description: {shorten(own['description'], DESCRIPTION_CHARS)}")
        for node in sorted(paths_of.get(entity["key"], []), key=lambda n: -n["score"]):
            lines.append(f"- {spoken(node)}" + _refs([i for s in node["steps"] for i in s["evidence_ids"]], number))
            if neighbours and node["description"]:
                lines.append(f"  ({node['name']}: {shorten(node['description'], NEIGHBOUR_CHARS)})")
        contexts[entity["name"]] = "\n".join(lines) if len(lines) > 1 else ""
    return contexts


def links_context(links: list[Link], evidence_index: list[EvidenceItem]) -> str:
    """The edges between question entities, strongest first ("" when there are none)."""
    number = {e["id"]: e["n"] for e in evidence_index}
    lines = [
        f"- {verbalise([x])} ({x['confidence']:.2f})" + _refs(x["evidence_ids"], number) + _stated_words([x])
        for x in links[:MAX_LINKS]
    ]
    return "Between the question's entities:\n" + "\n".join(lines) if lines else ""


def differential_context(differential: Sequence[CandidateDiagnosis]) -> str:
    """The leading candidate diagnoses with the share of patients having each finding ("" for no case)."""
    if not is_case(differential):
        return ""
    lines = [
        f"- {c['name']} {c['probability']:.2f} ("
        + ", ".join(f"{f} in {p:.0%} of patients" for f, p in c.get("frequencies", {}).items())
        + (f"; like the stored patients {', '.join(c['patients'])}" if c.get("patients") else "")
        + ")"
        for c in differential[:DIFFERENTIAL_SHOWN]
    ]
    source = (
        "disease annotations and stored patients"
        if any(c.get("patients") for c in differential)
        else ("disease annotations")
    )
    return f"Candidate diagnoses for the findings ({source}, ranked naive-Bayes style):\n" + "\n".join(lines)


def joint_context(contexts: dict[str, str], links: str = "") -> str:
    """The links (and differential), then all entities' contexts; those the graph knows nothing about share one line."""
    unknown = [name for name, text in contexts.items() if not text]
    parts = (
        [links] * bool(links)
        + [text for text in contexts.values() if text]
        + ([f"Nothing relevant in the knowledge graph on: {', '.join(unknown)}."] if unknown else [])
    )
    return "\n\n".join(parts) or "(no entities)"


def evidence_block(evidence_index: list[EvidenceItem]) -> str:
    """The numbered evidence as a quoted block ("(none)" inside when there is none).

    Literature shows a snippet; a vocabulary entry only its title (its text is the entity's
    description, already in the context). A paper PubMed retracted or deleted says so."""
    lines = "\n".join(
        f"[{e['n']}] ({e['kind']}{', ' + str(e['year']) if e.get('year') else ''}"
        + (f", {str(e.get('status')).upper()}: do not rely on it" if withdrawn(e) else "")
        + f") {prompt_title(e)}"
        + (
            f": {e.get('lead') or shorten(e['snippet'], SNIPPET_CHARS)}"
            if e.get("snippet") and e["kind"] != "vocabulary"
            else ""
        )
        for e in evidence_index
    )
    return load("evidence").format(evidence=lines or "(none)")


def prompt_title(evidence: EvidenceItem) -> str:
    """The title as the model reads it: a vocabulary entry's without its identifiers."""
    title = evidence.get("title", "")
    if evidence["kind"] != "vocabulary":
        return title
    return " ".join(_EMPTY.sub("", _CODES.sub(" ", title)).split()) or title


def conclusion(reasoning: str) -> str:
    """The reasoning's last complete sentence (the prompt asks it to end on the answer it points to).

    A chain cut at ``REASONING_TOKENS`` ends mid-sentence: that unfinished sentence is left out
    when a complete one precedes it."""
    sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])", " ".join(reasoning.split()))  # not at "e.g. diarrhea"
    if len(sentences) > 1 and not re.search(r"[.!?][\"')\]*]*$", sentences[-1]):
        sentences.pop()
    return shorten(sentences[-1], RATIONALE_CHARS)


def study_reading(evidence_index: list[EvidenceItem], links: Sequence[Link] = ()) -> str:
    """What a research question's answer reads instead of a chain of thought: the study findings and links the
    graph holds, then the numbered evidence (its best match at length, conclusion first).

    A chain of thought before it turned answers that reading the same papers gives directly, and cost a call.
    Only studies are listed when there are any: otherwise a small model cites a vocabulary entry of the
    question's entities (an HPO term's name) instead of the paper it read."""
    held = quote(links_context(list(links), evidence_index))  # data: a paper's sentence cannot close a block
    studies = [e for e in evidence_index if e.get("pmid")]
    return (held + "\n\n" if held else "") + evidence_block(studies or evidence_index) + "\n"


def studies_read(evidence_index: list[EvidenceItem], links: Sequence[Link] = ()) -> list[int]:
    """The evidence numbers a research question's answer rests on when its reply cites none: the paper read at
    length, else the papers behind the strongest study finding read with the question."""
    lead = [e["n"] for e in evidence_index if e.get("lead") and e.get("pmid")]
    if lead:
        return lead[:1]
    number = {e["id"]: e["n"] for e in evidence_index if e.get("pmid")}
    found = [x for x in links if x["relation"] in FINDING_NAMES and any(i in number for i in x["evidence_ids"])]
    return sorted({number[i] for i in found[0]["evidence_ids"] if i in number}) if found else []


def think_alone(question: str, options: dict[str, str], *, llm, usage: Usage) -> list[Turn]:
    """The conversation after the model has thought the question through with nothing shown (the chain-of-thought
    turn, ``REASONING_TOKENS`` at most): the cot baseline's first step, and an open question's draft's."""
    thinking = load("reasoning").format(
        context="(none: use your own medical knowledge)", evidence=load("evidence").format(evidence="(none)")
    )
    _, dialogue = talk(
        llm, [], text=request([], question, options=options, text=thinking), usage=usage, max_tokens=REASONING_TOKENS
    )
    return dialogue


def draft_answer(asked: Asked, llm, samples: int = 0) -> DraftUpdate:
    """State update for an open question: the model's own answer with nothing shown, after a short chain of thought
    (``draft``: its answer, its tokens' likelihood, the conversation that made it and ``samples`` short answers for
    its confidence, agreement.py), which the graph then reads against (review.py); empty when no answer was usable.
    It is the cot baseline's answer: what the graph adds is measured against the best the model does alone."""
    usage = Usage()  # samples first: the answer check after the draft then reuses the server's cache of it
    sampled = sampled_answers(llm, asked.question, usage=usage, k=samples)
    reply, dialogue, _ = ask_answer(
        llm, think_alone(asked.question, {}, llm=llm, usage=usage), question=asked.question, options={}, usage=usage
    )
    if reply is None:
        return {"degradations": ["reasoner: no usable draft answer"], **usage.as_update()}
    answer = " ".join(_CITED.sub("", reply.answer).split())  # it was shown nothing to cite
    draft = Draft(
        answer=answer,
        likelihood=reply.likelihood,
        tokens=reply.tokens,
        stated=reply.confidence,
        dialogue=dialogue,
        samples=sampled,
    )
    return {"draft": draft, **usage.as_update()}


def reason(asked: Asked, found: Found, *, llm, per_entity: bool = False) -> Reasoning:
    """State update: ``reasoning`` ({entity: text}), its conclusion as the ``rationale`` (joint mode),
    the conversation with the reasoning turn, usage.

    In per-entity mode each entity gets its own call after the conversation so far; the conversation then
    carries all contexts and the joined reasoning as one turn, as if asked at once.
    """
    question, options, entities, dialogue = asked.question, asked.options, asked.entities, asked.dialogue
    nodes, evidence_index, links, differential = found.nodes, found.evidence_index, found.links, found.differential
    usage = Usage()
    contexts = entity_contexts(
        entities, nodes, evidence_index=evidence_index, neighbours=per_entity, shown=found.shown or None
    )
    between = "\n\n".join(
        filter(None, [links_context(list(links), evidence_index), differential_context(list(differential))])
    )
    evidence = evidence_block(evidence_index)
    prompt = load("reasoning")
    whole = request(
        dialogue,
        question,
        options=options,
        text=prompt.format(context=joint_context(contexts, between), evidence=evidence),
    )
    if not per_entity:
        said, dialogue = talk(llm, dialogue, text=whole, usage=usage, max_tokens=REASONING_TOKENS)
        update = Reasoning(reasoning={"all": said}, rationale=conclusion(said), dialogue=dialogue, **usage.as_update())
        return update if said else {**update, "degradations": [NO_REASONING]}
    reasoning = {
        name: talk(
            llm,
            dialogue,
            text=request(
                dialogue,
                question,
                options=options,
                text=prompt.format(context=joint_context({name: context}, between), evidence=evidence),
            ),
            usage=usage,
            max_tokens=REASONING_TOKENS,
        )[0]
        for name, context in contexts.items()
    }
    said = "\n\n".join(f"{name}: {text}" for name, text in reasoning.items() if text)
    turns = [{"role": "user", "content": whole}, {"role": "assistant", "content": said}]
    return Reasoning(reasoning=reasoning, dialogue=[*dialogue, *turns], **usage.as_update())
