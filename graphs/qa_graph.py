"""The QA graph: question -> entities -> gaps -> evidence + scored relations -> traversal -> answer.

Nodes are thin: they take tools from the run's Resources and call one agent each.
Routing: empty input ends at once; offline mode, or no gaps in hybrid mode, skips the
evidence step; evidence is fetched per entity in parallel branches (Send) and scored into
the graph after the answer (``AMG_LEARN=after``: the reasoner reads the evidence itself) or
before the traversal (``before``, the paper's order). A research question whose claim the graph
does not hold (agents/gap_detector.py) sends the question itself to PubMed instead, and after the
answer the finding of the paper it cites (else the best match) is learned with its PMID.
"""

from __future__ import annotations

import time
from functools import wraps

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from amg.agents.answer_synthesizer import synthesize
from amg.agents.diagnostician import differentiate, read_answers
from amg.agents.finding_reader import learn_finding
from amg.agents.gap_detector import detect_gaps, is_research_question
from amg.agents.query_parser import parse_query, spot_entities
from amg.agents.glossary import glossary
from amg.agents.reasoner import number_evidence, reason, shown_paths, with_lead_text
from amg.agents.traverser import traverse_subgraph
from amg.graphs.context import Context, run_context
from amg.graphs.expansion import expand, learn, search
from amg.graphs.question import prepare_question
from amg.graphs.reply import chat_reply
from amg.graphs.resources import resources_for
from amg.graphs.state import PER_TURN_RESET, QAInput, QAState
from amg.tools.kg.connection import GraphUnavailable
from amg.tools.llm.calibration import extraction_reliability
from amg.tools.llm.chat import ModelUnavailable

MAX_ANSWER_ENTITIES = 2  # entities the answer names that are learned about after it (one scoring call each)
CLAIM = "claim"  # the evidence key of what the question itself found
CLAIM_PAPERS = 3  # papers read for a research question: the lead at length, the others as snippets


def timed(name: str):
    """Record the node's wall time in ``timings_ms``."""

    def wrap(fn):
        @wraps(fn)
        def node(state, runtime: Runtime[Context]):
            start = time.perf_counter()
            update = fn(state, runtime) or {}
            update["timings_ms"] = {name: (time.perf_counter() - start) * 1000}
            return update

        return node

    return wrap


def prepare(state: QAState, runtime: Runtime[Context]) -> dict:
    question, options, notices, problem = prepare_question(state)
    answered = read_answers(_said(state), state.get("follow_up") or [])
    findings = {**(state.get("findings") or {}), **answered} if answered else {}
    update = {**PER_TURN_RESET, "question": question, "options": options, "notices": notices, "findings": findings}
    if problem:
        update.update(answer=problem, problem=problem, confidence=0.0, messages=[AIMessage(problem)])
    return update


def _said(state: QAState) -> str:
    """This turn's own words (a chat message, or the question)."""
    messages = state.get("messages") or []
    return str(messages[-1].content) if messages and isinstance(messages[-1], HumanMessage) else state.get("question", "")


@timed("parse_query")
def parse(state: QAState, runtime: Runtime[Context]) -> dict:
    ctx = run_context(runtime)
    res = resources_for(ctx)
    return parse_query(state["question"], state.get("options", {}), res.llm, res.linker, ctx.max_entities,
                       ctx.retrieval_uses_options, ctx.query_parser)  # fmt: skip


@timed("check_gaps")
def check_gaps(state: QAState, runtime: Runtime[Context]) -> dict:
    ctx = run_context(runtime)
    return detect_gaps(state.get("entities", []), resources_for(ctx).store, ctx.tau, ctx.stale_days,
                       ctx.min_relations, state["question"], state.get("options", {}))  # fmt: skip


@timed("expand_entity")
def expand_entity(task: dict, runtime: Runtime[Context]) -> dict:
    """One branch per entity: evidence search, and (learning before the answer) relation scoring and the write."""
    ctx = run_context(runtime)
    res = resources_for(ctx)
    if ctx.learn == "after":
        found = search(task["entity"], task["question"], res, ctx)
        kept = {"records": found["records"], "texts": found["texts"]}
        return {"evidence": {task["entity"]["key"]: kept}, "degradations": found["degradations"]}
    done = expand(task["entity"], task["question"], task["entities"], res, ctx)
    return {
        "evidence": {task["entity"]["key"]: {"records": done["records"], "texts": done["texts"]}},
        "new_relations": done["new_relations"],
        "degradations": done["degradations"],
        "llm_calls": done["llm_calls"],
        "tokens": done["tokens"],
    }


@timed("search_claim")
def search_claim(task: dict, runtime: Runtime[Context]) -> dict:
    """A research question's own literature search: the question is the query, as a user types it into PubMed."""
    ctx = run_context(runtime)
    batch = resources_for(ctx).evidence.find_evidence(task["question"], ["pubmed"], k=CLAIM_PAPERS)
    kept = {"records": [r.as_props() for r in batch.records], "texts": batch.texts}
    return {"evidence": {CLAIM: kept}, "degradations": batch.degradations}


def after_the_answer(fn):
    """A fault while learning after the answer (a model timeout, the graph gone) is reported beside the
    answer and counted; it never loses the answer."""

    @wraps(fn)
    def node(task: dict, runtime: Runtime[Context]) -> dict:
        try:
            return fn(task, runtime)
        except (ModelUnavailable, GraphUnavailable) as exc:
            return {"degradations": [f"learning after the answer failed: {exc}"], "learning_faults": 1}

    return node


@timed("learn")
@after_the_answer
def learn_entity(task: dict, runtime: Runtime[Context]) -> dict:
    """After the answer, one branch per entity: its evidence scored into the graph for the next question."""
    ctx = run_context(runtime)
    done = learn(task["entity"], task["question"], task["entities"], task["found"], resources_for(ctx), ctx)
    return {key: done[key] for key in ("new_relations", "degradations", "llm_calls", "tokens")}


@timed("learn")
@after_the_answer
def learn_study(task: dict, runtime: Runtime[Context]) -> dict:
    """After a research question's answer: the finding of the paper it rests on, with its PMID."""
    ctx = run_context(runtime)
    res = resources_for(ctx)
    done = learn_finding(task["question"], task["entities"], task["paper"], task["text"], res.llm, res.model_name,
                         extraction_reliability(res.model_name), res.store, ctx.keep_score)  # fmt: skip
    return {"new_relations": done["new_relations"], "llm_calls": done["llm_calls"], "tokens": done["tokens"],
            "degradations": [f"finding reader: {why}" for why in done["refused"]]}  # fmt: skip


@timed("traverse")
def traverse(state: QAState, runtime: Runtime[Context]) -> dict:
    ctx = run_context(runtime)
    res = resources_for(ctx)
    query = " ".join([state["question"], *state.get("options", {}).values()])
    return traverse_subgraph(state["entities"], res.store, ctx.tau, ctx.max_depth, ctx.max_nodes, ctx.traversal,
                             ctx.hub_degree, query, res.embed, ctx.path_ranking, ctx.question_links,
                             ctx.min_path_relevance)  # fmt: skip


@timed("differential")
def differential(state: QAState, runtime: Runtime[Context]) -> dict:
    """Candidate diagnoses for the case's findings, and follow-up questions when the leaders are close."""
    store = resources_for(run_context(runtime)).store
    return differentiate(state.get("entities", []), store, state.get("findings") or {})


def _fetched(state: QAState) -> list[dict]:
    """Records fetched this turn, the question's own search first (its best match is read at length)."""
    evidence = state.get("evidence", {})
    ordered = sorted(evidence.items(), key=lambda item: item[0] != CLAIM)
    return [r for _, found in ordered for r in found.get("records", [])]


def _fetched_texts(state: QAState) -> dict[str, str]:
    texts = {i: t for found in state.get("evidence", {}).values() for i, t in (found.get("texts") or {}).items()}
    return {r["id"]: texts[r["id"]] for r in _fetched(state) if r["id"] in texts}


def _fetched_ids(state: QAState) -> list[str]:
    return [r["id"] for r in _fetched(state)]


@timed("reason")
def reason_node(state: QAState, runtime: Runtime[Context]) -> dict:
    ctx = run_context(runtime)
    res = resources_for(ctx)
    nodes, links = state["subgraph"]["nodes"], state["subgraph"]["links"]
    index = number_evidence(nodes, _fetched(state), res.store, links, state.get("differential", []))
    index = with_lead_text(index, _fetched_texts(state))
    update = reason(state["question"], state.get("options", {}), state["entities"], nodes, index, res.llm,
                    ctx.per_entity_reasoning, state.get("dialogue", []), links, state.get("differential", []))  # fmt: skip
    return {**update, "evidence_index": index}


@timed("answer")
def answer(state: QAState, runtime: Runtime[Context]) -> dict:
    res = resources_for(run_context(runtime))
    subgraph = state["subgraph"]
    update = synthesize(
        state["question"], state.get("options", {}), state.get("dialogue", []), state.get("evidence_index", []),
        subgraph["nodes"], _fetched_ids(state), state.get("entities", []), res.llm, res.calibration(kind=_kind(state)),
        subgraph["links"], state.get("differential", []), extraction_reliability(res.model_name),
    )  # fmt: skip
    shown = [n for paths in shown_paths(subgraph["nodes"]).values() for n in paths]
    if run_context(runtime).learn == "after" and update.get("citations") and _fetched_ids(state):
        update["answer_entities"] = spot_entities(update["answer"], res.linker)
    update["glossary"] = glossary(res.store, state.get("entities", []), shown, subgraph["links"])
    update["messages"] = [AIMessage(chat_reply({**state, **update}))]
    return update


def _kind(state: QAState) -> str:
    """The kind of question its confidence is calibrated for (tools/llm/calibration.py)."""
    return "research" if is_research_question(state["question"], state.get("options", {})) else "exam"


def after_prepare(state: QAState) -> str:
    return END if state.get("answer") else "parse_query"


def after_parse(state: QAState) -> str:
    research = is_research_question(state["question"], state.get("options", {}))
    return "check_gaps" if state.get("entities") or research else "answer"


def after_gaps(state: QAState, runtime: Runtime[Context]):
    ctx = run_context(runtime)
    if ctx.evidence_mode == "offline" or not ctx.sources:
        return "traverse"
    if state.get("claim_gap") and "pubmed" in ctx.sources:
        return [Send("search_claim", {"question": state["question"]})]
    targets = state["entities"] if ctx.evidence_mode == "dynamic" else state.get("gaps", [])
    if not targets:
        return "traverse"
    return [Send("expand_entity", {"entity": e, "question": state["question"], "entities": state["entities"]})
            for e in targets]  # fmt: skip


def after_answer(state: QAState, runtime: Runtime[Context]):
    """Learning after the answer: each searched entity's evidence goes to the relation scorer, and so does the
    cited evidence for what the answer names besides the question's entities (the demo's "metformin")."""
    evidence = state.get("evidence") or {}
    if run_context(runtime).learn != "after" or not evidence:
        return END
    if CLAIM in evidence:
        return _study_to_learn(state, evidence[CLAIM])
    tasks = [(e, evidence[e["key"]]) for e in state.get("entities", []) if evidence.get(e["key"], {}).get("records")]
    cited = {c["evidence_id"] for c in state.get("citations", [])}
    backing = {"records": [r for r in _fetched(state) if r["id"] in cited],
               "texts": {i: t for i, t in _fetched_texts(state).items() if i in cited}}
    asked = {e["key"] for e in state.get("entities", [])}
    named = [e for e in state.get("answer_entities", []) if e["key"] not in asked][:MAX_ANSWER_ENTITIES]
    tasks += [(e, backing) for e in named if backing["records"]]
    everyone = [*state.get("entities", []), *named]
    return [Send("learn_entity", {"entity": e, "question": state["question"], "entities": everyone, "found": found})
            for e, found in tasks] or END  # fmt: skip


def _study_to_learn(state: QAState, found: dict):
    """The paper the answer cites among the question's own search (else its best match), to learn its finding."""
    cited = [c["evidence_id"] for c in state.get("citations", [])]
    papers = sorted(found.get("records", []), key=lambda r: r["id"] not in cited)
    if not papers or papers[0]["id"] not in found.get("texts", {}):
        return END
    paper = papers[0]
    return [Send("learn_study", {"question": state["question"], "entities": state.get("entities", []),
                                 "paper": paper, "text": found["texts"][paper["id"]]})]  # fmt: skip


builder = StateGraph(QAState, context_schema=Context, input_schema=QAInput)
builder.add_node("prepare", prepare)
builder.add_node("parse_query", parse)
builder.add_node("check_gaps", check_gaps)
builder.add_node("expand_entity", expand_entity)
builder.add_node("search_claim", search_claim)
builder.add_node("traverse", traverse)
builder.add_node("differential", differential)
builder.add_node("reason", reason_node)
builder.add_node("answer", answer)
builder.add_node("learn_entity", learn_entity)
builder.add_node("learn_study", learn_study)
builder.add_edge(START, "prepare")
builder.add_conditional_edges("prepare", after_prepare, ["parse_query", END])
builder.add_conditional_edges("parse_query", after_parse, ["check_gaps", "answer"])
builder.add_conditional_edges("check_gaps", after_gaps, ["expand_entity", "search_claim", "traverse"])
builder.add_edge("expand_entity", "traverse")
builder.add_edge("search_claim", "traverse")
builder.add_edge("traverse", "differential")
builder.add_edge("differential", "reason")
builder.add_edge("reason", "answer")
builder.add_conditional_edges("answer", after_answer, ["learn_entity", "learn_study", END])
builder.add_edge("learn_entity", END)
builder.add_edge("learn_study", END)
graph = builder.compile(name="AMG QA")
