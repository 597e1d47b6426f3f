"""An open answer the graph can only improve: the model's own draft, read against what the graph says on the point.

The draft is the model's answer with nothing shown (agents/reasoner.py ``draft_answer``). The graph's facts are read
against it only where they bear on what is asked: a fact about a question entity whose relation is the one the
question asks for (tools/question_kinds.py ``asked_relations``: "Which organism causes Lyme disease?" asks for Lyme
disease's ``caused_by``), whatever its words share with the question. Then:

- a fact that names what the draft names supports it: the draft stands, citing the fact's evidence;
- a strong fact (curated or sourced, at ``STRONG`` or more) that the draft contradicts, among a few such facts, is
  shown to the model with its draft, once: a revised answer stands only if it names one of them;
- where the graph says nothing on the point the draft stands, resting on the model's own knowledge.

Outside offline mode the local passages (the textbook store) are also searched for the draft itself, question and
answer together (``with_passages``): a passage a sentence of which states the answer is cited for it, as evidence
fetched for the question would be. A follow-up in a chat ("And its most common side effect?") finds no gap to search,
yet the chapter that answers it is on this machine.

Names are shown as a clinician writes them: an ontology label's qualifiers ("(phenotype)", "(axonal, type 2CC)")
are dropped (``clinical_name``), and a revised answer that copies one is cleaned the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, replace

from amg.agents.answer_synthesizer.agreement import agreement
from amg.agents.answer_synthesizer.answer_lines import read_reply
from amg.agents.answer_synthesizer.quotes import backing, key_entities, quoted
from amg.agents.answer_synthesizer.self_check import p_true
from amg.agents.answer_synthesizer.synthesizer import MODEL_KNOWLEDGE, WITHDRAWN_ONLY, Answered, Basis, cited_items
from amg.agents.diagnostician import is_case
from amg.agents.reasoner import Draft
from amg.prompts import load
from amg.tools.kg.pipeline_types import (
    Asked,
    CandidateDiagnosis,
    EvidenceItem,
    Found,
    GraphPath,
    Named,
    withdrawn,
    withdrawn_label,
)
from amg.tools.kg.records import EvidenceRecord
from amg.tools.kg.schema import normalize_key
from amg.tools.llm.confidence_maps import CalibrationMap
from amg.tools.llm.conversation import Turn, talk
from amg.tools.llm.structured import Usage
from amg.tools.question_kinds import asked_relations, asks_for_diagnosis

STRONG = 0.8  # a fact at this confidence or more, with evidence, may revise a draft (curated entries are 0.8-1.00)
MAX_CANDIDATES = 3  # more distinct answers than this ("Which drug treats hypertension?") and none of them is *the* one
REVIEW_TOKENS = 60
SUPPORT_PASSAGES = 2  # passages searched for the draft: the nearest hold its sentence if the store has one
# an ontology label's qualifiers: "(phenotype)", "(disease)", "(axonal, type 2CC)", ", unspecified", " NOS"
_QUALIFIER = re.compile(r"\s*\([^()]*\)|,\s*(?:unspecified|not elsewhere classified)\b|\s+NOS\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z0-9]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_MINOR = frozenset("a an the of and or in on with without to for by at as".split())


@dataclass(frozen=True)
class Fact:
    """A fact about a question entity whose far end would answer the question."""

    end: str  # the far end's name, as a clinician writes it
    end_key: str
    _: KW_ONLY
    said: str  # the fact as words: "Lyme disease is caused by Borrelia burgdorferi"
    confidence: float
    evidence_ids: tuple[str, ...]
    names: tuple[str, ...]  # the end's name and aliases, cleaned

    @property
    def strong(self) -> bool:
        return self.confidence >= STRONG and bool(self.evidence_ids)


def clinical_name(label: str) -> str:
    """``label`` without an ontology's qualifiers: "Charcot-Marie-Tooth disease (axonal, type 2CC)" is
    "Charcot-Marie-Tooth disease"; a label that is nothing but a qualifier stays as it is."""
    cleaned = " ".join(_QUALIFIER.sub("", label).split())
    return cleaned or label


def words_of(name: str) -> set[str]:
    """The words that make ``name`` what it is: its keys, without minor words; a lone capital ("Vitamin A") counts."""
    found = set()
    for word in _WORD.findall(name):
        if word.lower() in _MINOR and not (len(word) == 1 and word.isupper()):
            continue
        found.add(normalize_key(word))
    return found - {""}


def mentions(text: str, name: str) -> bool:
    """Whether ``text`` names ``name``: every word that makes the name is in the text, in any order; a name of three
    words or more may lack one long word ("type 2 diabetes" names "Type 2 diabetes mellitus"), never a short or
    numbered one ("vitamin deficiency" does not name "Vitamin A deficiency")."""
    wanted = words_of(clinical_name(name))
    said = [normalize_key(w) for w in _WORD.findall(text)]
    missing = wanted - set(said)
    if not wanted or len(missing) > 1 or not _letters_in_place(clinical_name(name), said):
        return False
    return not missing or (len(wanted) >= 3 and all(w.isalpha() and len(w) >= 5 for w in missing))


def _letters_in_place(name: str, said: list[str]) -> bool:
    """A lone letter of a name ("Vitamin A") is named only right after its word ("vitamin a"), not as an article."""
    words = [normalize_key(w) for w in _WORD.findall(name)]
    pairs = set(zip(said, said[1:]))
    return all((words[i - 1], w) in pairs for i, w in enumerate(words) if len(w) == 1 and i > 0)


def answering_nodes(question: str, entities: Sequence[Named], nodes: list[GraphPath]) -> list[GraphPath]:
    """The paths, shown or hidden, that bear on what ``question`` asks: one step from a question entity along the
    relation it asks for, strongest first, each far end once."""
    asked = asked_relations(question)
    if not asked:
        return []
    seeds = {e["key"] for e in entities}
    chosen: dict[str, GraphPath] = {}
    for node in sorted(nodes, key=lambda n: -n["score"]):
        if node["depth"] == 1 and node["seed_key"] in seeds and node["key"] not in seeds:
            if node["steps"][0]["relation"] in asked and node["key"] not in chosen:
                chosen[node["key"]] = node
    return list(chosen.values())


def answering_facts(
    question: str, entities: Sequence[Named], *, found: Found, aliases: dict[str, list[str]]
) -> list[Fact]:
    """``answering_nodes`` as facts; ``aliases``: other names of the facts' ends (by key), for matching words. A case
    that asks what the patient has is answered by its strong diagnoses alone, when it has any: the findings it tells
    ("mitral regurgitation is present") would otherwise read as asking for their symptom relations."""
    diagnoses = diagnosis_facts(question, found.differential)
    if diagnoses:
        return diagnoses
    return [
        _fact(node, node["steps"][0]["source"], relation=node["steps"][0]["relation"], aliases=aliases)
        for node in (found.on_point if found.on_point is not None else answering_nodes(question, entities, found.nodes))
    ]


def diagnosis_facts(question: str, differential: Sequence[CandidateDiagnosis]) -> list[Fact]:
    """A case's candidates at ``STRONG`` probability or more, with the annotations behind them, as facts that answer
    a question asking what the patient has: a small model that cannot name the disease ("A patient with severe eye
    problems and an enlarged aortic root", where HPO's annotations put Marfan syndrome at 0.97 once mitral
    regurgitation is told) is shown it. On benchmarks/differential.py's simulated patients (400, findings told at
    their annotations' grain or 30% one level coarser) a leader at 0.8 or more was right 60 times of 60; no MMLU or
    PubMedQA dev question that asks for a diagnosis has one."""
    if not (asks_for_diagnosis(question) and is_case(differential)):
        return []
    return [
        Fact(
            end=clinical_name(c["name"]),
            end_key=c["key"],
            said=f"The findings ({', '.join(c['present'])}) fit {clinical_name(c['name'])} (HPO's disease annotations)",
            confidence=float(c["probability"]),
            evidence_ids=tuple(c.get("evidence_ids") or ()),
            names=tuple(dict.fromkeys(clinical_name(n) for n in [c["name"], *c.get("subtypes", [])])),
        )
        for c in differential
        if c["probability"] >= STRONG and c.get("evidence_ids")
    ]


def _fact(node: GraphPath, seed: str, *, relation: str, aliases: dict[str, list[str]]) -> Fact:
    end = clinical_name(node["name"])
    said = f"{clinical_name(seed)} {relation.replace('_', ' ')} {end}"
    names = tuple(dict.fromkeys(clinical_name(n) for n in [node["name"], *aliases.get(node["key"], [])]))
    evidence = tuple(i for step in node["steps"] for i in step["evidence_ids"])
    return Fact(end, node["key"], said=said, confidence=float(node["score"]), evidence_ids=evidence, names=names)


def states(quote: str, answer: str, keys: Sequence[Named]) -> bool:
    """Whether a sentence states the answer, not only names its subject: it holds at least half of the answer's
    words besides the key entities' names ("Lactic acidosis during metformin treatment" names metformin but does
    not state "Metformin treats type 2 diabetes mellitus")."""
    named = set().union(*(words_of(k.get("name", "")) for k in keys)) if keys else set()
    rest = words_of(answer) - named
    return not rest or 2 * len(rest & words_of(quote)) >= len(rest)


def answering_sentence(answer: str, question: str) -> str:
    """The sentence of ``answer`` that answers ``question``: the one sharing most words with it, the later on a tie
    ("Metformin treats type 2 diabetes. Its most common side effect is nausea." asked for the side effect). A citation
    must state that sentence, not the context the answer restates first."""
    said = [s for s in _SENTENCE_END.split(answer.strip()) if s.strip()]
    if len(said) < 2:
        return answer
    asked = words_of(question)
    return max(reversed(said), key=lambda s: len(words_of(s) & asked))


def named_by(text: str, facts: list[Fact]) -> list[Fact]:
    """The facts whose answer ``text`` names (by name or alias)."""
    return [f for f in facts if any(mentions(text, name) for name in f.names)]


def with_passages(found: Found, records: list[EvidenceRecord], texts: dict[str, str]) -> Found:
    """``found`` with the passages a search for the draft returned (``records``, their ``texts``) numbered after its
    evidence and counted as fetched, so ``review`` cites one where a sentence of it states the answer."""
    held = {e["id"] for e in found.evidence_index}
    new = [r for r in records if r.id not in held]
    start = len(found.evidence_index)
    added: list[EvidenceItem] = [
        {"n": start + i, **r.as_props(), "snippet": texts.get(r.id, r.snippet)} for i, r in enumerate(new, 1)
    ]
    fetched = [*found.fetched_ids, *(e["id"] for e in added)]
    return replace(found, evidence_index=[*found.evidence_index, *added], fetched_ids=fetched)


def review(
    asked: Asked,
    found: Found,
    *,
    draft: Draft,
    llm,
    aliases: dict[str, list[str]],
    calibration: CalibrationMap | None = None,
    reading: float = 1.0,
    embed: Callable[[list[str]], list[list[float]]] | None = None,
) -> Answered:
    """State update for an open question: the answer (the draft, or its revision by a strong fact), its citations,
    its confidence and how it was made, the conversation, usage. ``draft``: {"answer", "likelihood",
    "dialogue", "samples"} as ``draft_answer`` made it; ``embed`` reads how close the answer is to the samples.
    Evidence fetched this run, or behind a fact on the point that the answer does not name (the passage a relation
    "diarrhea adverse effect of metformin" was learned from, under "nausea"), is cited where a sentence of it states
    the answer (support ``reading``, the model's measured precision reading evidence); it never revises a draft."""
    usage = Usage()
    facts = answering_facts(asked.question, asked.entities, found=found, aliases=aliases)
    answer, dialogue, likelihood = draft["answer"], list(draft["dialogue"]), draft.get("likelihood")
    tokens = dict(draft.get("tokens") or {})
    stated = float(draft.get("stated") or 0.5)
    agreeing = named_by(answer, facts)
    contrary = [f for f in facts if f.strong and f not in agreeing]
    agreed, was_revised = bool(agreeing), False
    basis: Basis = {"draft": answer, "facts_on_the_point": len(facts), "agreed": agreed, "revised": was_revised}
    if draft.get("samples"):  # what the model said when asked again, shown beside the agreement read from them
        basis["samples"] = list(draft["samples"])
    if not agreeing and contrary and len(contrary) <= MAX_CANDIDATES:
        revised, dialogue = _revised(answer, contrary, dialogue=dialogue, llm=llm, usage=usage)
        backed = named_by(revised or "", contrary)
        if revised and backed:
            answer, agreeing, likelihood, tokens = _cleaned(revised, backed), backed, None, {}
            was_revised = basis["revised"] = True
    fetched = set(found.fetched_ids)
    on_point = {i for f in facts for i in f.evidence_ids}  # behind the facts on the point, whichever answer they back
    cited = [e["n"] for e in found.evidence_index if e["id"] in fetched or e["id"] in on_point]
    keys = key_entities(answer, asked.entities, found.nodes)
    claim = answering_sentence(answer, asked.question)
    quotes = quoted(
        cited,
        found.evidence_index,
        steps=backing(found.nodes, found.links, found.differential),
        keys=keys,
        answer=claim,
        question=asked.question,
    )
    by_fact = {e["n"] for e in found.evidence_index if any(e["id"] in f.evidence_ids for f in agreeing)}
    valid = [n for n in cited if n in quotes and (n in by_fact or states(quotes[n], claim, keys))]
    read = [  # a sentence of it states the answer
        e
        for e in found.evidence_index
        if e["n"] in valid and (e["id"] in fetched or e["n"] not in by_fact) and not withdrawn(e)
    ]
    support = max([*(f.confidence for f in agreeing), *([reading] if read else [])], default=0.0)
    gone = [e for e in found.evidence_index if e["n"] in valid and withdrawn(e)]
    if gone:  # a retracted or deleted paper stays cited, marked, and nothing rests on it
        basis["withdrawn_citations"] = [{"n": e["n"], "id": e["id"], "status": e["status"]} for e in gone]
    if not valid:
        basis["rests_on"] = MODEL_KNOWLEDGE
    elif len(gone) == len(valid):
        basis["rests_on"] = WITHDRAWN_ONLY.format(papers=", ".join(withdrawn_label(e) for e in gone))
    p_yes = p_true(llm, dialogue, usage) if dialogue else None
    signals = {
        "p_true": p_yes,
        "p_answer": likelihood,
        "p_first": tokens.get("p_first"),
        "p_lowest": tokens.get("p_lowest"),
        "p_stated": None if was_revised else draft.get("stated"),  # the draft's own "Confidence:" line
        "agreed": float(agreed),
        "revised": float(was_revised),
        # how close the answer printed is to the short answers sampled beside the draft (``embed``: unit vectors)
        "agreement": agreement(answer, draft.get("samples") or [], question=asked.question, embed=embed)
        if embed
        else None,
    }
    confidence, scored = _confidence(signals, stated, support=support, calibration=calibration)
    return {
        "answer": answer,
        "option": None,
        "citations": cited_items(found.evidence_index, valid, quotes),
        "dialogue": dialogue,
        "confidence": round(confidence, 3),
        "confidence_basis": {**basis, **scored, "support": support},
        **usage.as_update(),
    }


def _revised(
    draft: str, facts: list[Fact], *, dialogue: list[Turn], llm, usage: Usage
) -> tuple[str | None, list[Turn]]:
    """The model's answer once shown the strong facts its draft disagrees with (None when unusable)."""
    lines = "\n".join(f"- {f.said} (confidence {f.confidence:.2f})" for f in facts)
    said, dialogue = talk(
        llm, dialogue, text=load("review").format(draft=draft, facts=lines), usage=usage, max_tokens=REVIEW_TOKENS
    )
    reply = read_reply(said, {}) if said else None
    return (reply.answer if reply else None), dialogue


def _cleaned(answer: str, facts: list[Fact]) -> str:
    """A revised answer with any qualified label it copied written as a clinician would."""
    for fact in facts:
        for label in re.findall(r"[^.;]*?\([^()]*\)", answer):
            if clinical_name(label).strip() and mentions(label, fact.end):
                answer = answer.replace(label, " " + clinical_name(label).strip())
    return " ".join(answer.split())


def _confidence(
    signals: dict[str, float | None], stated: float, *, support: float, calibration: CalibrationMap | None
) -> tuple[float, Basis]:
    """The open answer's confidence from what tells right from wrong (P(True), the draft's likelihood, whether the
    graph agreed or revised it) and the support of what it rests on, through the model's map; without the
    probability the map reads (or, unmapped, without P(True)) the model's stated confidence, marked uncalibrated."""
    shown = {k: round(v, 4) for k, v in signals.items() if v is not None}
    feature = (calibration.about.get("feature") if calibration else None) or "p_true"
    p = signals.get(feature)
    if p is None:
        return stated * (0.5 + 0.5 * support), {**shown, "stated": stated, "calibrated": False, "source": "stated"}
    unmeasured = [name for name in (calibration.weights if calibration else {}) if signals.get(name) is None]
    if unmeasured == ["agreement"]:  # sampling turned off (AMG_ANSWER_SAMPLES=0): the map was fitted with it
        return float(p) * (0.5 + 0.5 * support), {**shown, "calibrated": False, "source": "verification probability"}
    if calibration is not None:
        return calibration.score(signals, support), {**shown, "calibrated": True, "source": "open-answer map"}
    return float(p) * (0.5 + 0.5 * support), {**shown, "calibrated": False, "source": "verification probability"}
