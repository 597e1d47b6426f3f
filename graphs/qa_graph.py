"""The QA graph: question -> entities -> gaps -> evidence + scored relations -> traversal -> answer.

Nodes are thin: they take tools from the run's Resources and call one agent each.
Routing: empty input ends at once; offline mode, or no gaps in hybrid mode, skips the
evidence step; evidence is fetched per entity in parallel branches (Send) and scored into
the graph after the answer (``AMG_LEARN=after``: the reasoner reads the evidence itself) or
before the traversal (``before``, the paper's order). A research question whose claim the graph
does not hold (agents/gap_detector.py) sends the question itself to PubMed instead; its answer reads
the studies without a chain of thought, and after it the finding of the paper it cites (else the
best match) is learned with its PMID (graphs/learning.py). A claim (question kind "claim", decided once in prepare)
takes its own path: papers, stances, verdict, findings learned (graphs/claim_path.py).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from amg.agents.answer_synthesizer.glossary import glossary
from amg.agents.answer_synthesizer.quotes import with_aliases
from amg.agents.answer_synthesizer.review import SUPPORT_PASSAGES, answering_nodes, review, with_passages
from amg.agents.answer_synthesizer.synthesizer import synthesize
from amg.agents.diagnostician import differentiate, read_answers, with_levels
from amg.agents.evidence_searcher import search_evidence
from amg.agents.gap_detector import detect_gaps
from amg.agents.kept_papers import kept_papers
from amg.agents.query_parser import parse_query, spot_entities
from amg.agents.reasoner import (
    draft_answer,
    number_evidence,
    reason,
    shown_paths,
    studies_read,
    study_reading,
    with_lead_text,
    with_stored_lead,
)
from amg.agents.record_diagnosis import case_sentence, record_answer
from amg.agents.traverser import TraversalSettings, traverse_subgraph, without_studies
from amg.graphs.claim_path import after_weighing, find_claim_papers, learn_claim, read_stances, weigh_claim
from amg.graphs.context import Context
from amg.graphs.expansion import expand, search
from amg.graphs.learning import after_answer, learn_entity, learn_study
from amg.graphs.question import follows_on, prepare_question, topic_of, with_topic
from amg.graphs.reply import chat_reply
from amg.graphs.run import Run, with_run
from amg.graphs.state import (
    CLAIM,
    KEPT,
    PER_TURN_RESET,
    QAInput,
    QAState,
    Update,
    fetched,
    fetched_ids,
    fetched_texts,
)
from amg.graphs.timing import timed
from amg.tools.claim_wording import states_claim
from amg.tools.kg.pipeline_types import Asked, Found, GraphPath, QuestionEntity, Subgraph
from amg.tools.llm.confidence_maps import extraction_reliability
from amg.tools.question_input import CLAIM_EMPTY, claim_to_check
from amg.tools.question_kinds import confidence_kind, is_research_question, question_kind

NO_SUBGRAPH = Subgraph(nodes=[], seeds=[], links=[])  # a question with no entity the graph knows
CLAIM_PAPERS = 1  # papers a research question reads: given three, a small model cites one that is not the best match


@with_run
def prepare(state: QAState, run: Run) -> dict:
    """The turn's question, options and kind, decided once: whether a chat message leans on the previous turn, the
    claim a message states, the answers to the differential's follow-ups."""
    if state.get("record"):
        return _record_case(state["record"], run)
    answered = read_answers(_said(state), state.get("follow_up") or [])
    leaned: list[bool] = []

    def leans_back(said: str) -> bool:  # asked from a chat's second turn only: the linker starts there, not before
        # "No hepatosplenomegaly." answering the differential's questions: the case goes on, whatever it names
        leaned.append(bool(answered) or follows_on(said, run.resources.linker))
        return leaned[-1]

    given_claim = state.get("claim") if state.get("check") else None  # `amg check` derived it already
    question, options, notices, problem = prepare_question(state, leans_back)
    findings = {**(state.get("findings") or {}), **answered} if answered else {}
    update = {**PER_TURN_RESET, "question": question, "options": options, "notices": notices, "findings": findings}
    update["follows"] = bool(leaned and leaned[-1])
    said = _said(state) if question else ""  # a claim is its own words, not a follow-up's context
    check = bool(state.get("check"))
    # a reply that answers the differential's follow-up questions is the case going on, not a claim to check
    claim = check or bool(said and not options and not answered and states_claim(said))
    update["kind"] = "claim" if claim else "research" if is_research_question(question, options) else "exam"
    if update["kind"] == "claim" and given_claim:
        update["claim"], claim_problem = given_claim, None
    elif update["kind"] == "claim":
        update["claim"], claim_problem = claim_to_check(said or question, check)
        problem = problem and (CLAIM_EMPTY if check and not question else problem) or claim_problem
    if problem:
        update.update(answer=problem, problem=problem, confidence=0.0, messages=[AIMessage(problem)])
    return update


def _record_case(record_id: str, run: Run) -> dict:
    """A stored patient as the case: its findings, told as a sentence; nothing of it is searched or sent anywhere."""
    records = run.resources.records
    stored = records.get(record_id) if records is not None else None
    update = {**PER_TURN_RESET, "record": record_id, "kind": "exam"}
    if stored is None:
        problem = f"No stored patient {record_id!r}: `amg records list` shows them, `amg records ingest` adds them."
        return {**update, "answer": problem, "problem": problem, "confidence": 0.0, "messages": [AIMessage(problem)]}
    r = stored.record
    absent = [f for f in r.absent if f.key not in {p.key for p in r.present}]
    question = case_sentence(r.age, r.sex, present=[f.label for f in r.present], absent=[f.label for f in absent])
    findings = {**{f.key: False for f in absent}, **{f.key: True for f in r.present}}
    return {**update, "question": question, "findings": findings, "options": {}}


def _kind(state: QAState) -> str:
    """The turn's kind as ``prepare`` decided it (a state from elsewhere without one: decided from its question)."""
    return state.get("kind") or question_kind(state["question"], state.get("options", {}))


def _said(state: QAState) -> str:
    """This turn's own words (a chat message, or the question)."""
    messages = state.get("messages") or []
    return (
        str(messages[-1].content) if messages and isinstance(messages[-1], HumanMessage) else state.get("question", "")
    )


@timed("parse_query")
@with_run
def parse(state: QAState, run: Run) -> Update:
    ctx, res = run.context, run.resources
    if state.get("kind") == "claim":  # the vocabularies' entities only: a claim's model calls are its stances
        return {"entities": spot_entities(state["claim"], res.linker)[: ctx.max_entities]}
    update = parse_query(
        state["question"],
        state.get("options", {}),
        llm=res.llm,
        linker=res.linker,
        max_entities=ctx.max_entities,
        use_options=ctx.retrieval_uses_options,
        parser=ctx.query_parser,
        lay=is_open(state),
    )
    topic = state.get("topic") or []
    # a follow-up keeps the previous turn's entity; a reply to the differential's questions is the diagnostician's
    if topic and not state.get("findings") and state.get("follows"):
        update["entities"] = with_topic(update["entities"], topic, ctx.max_entities)
    return update


@timed("check_gaps")
@with_run
def check_gaps(state: QAState, run: Run) -> Update:
    ctx = run.context
    return detect_gaps(
        state.get("entities", []),
        run.resources.store,
        tau=ctx.tau,
        stale_days=ctx.stale_days,
        min_relations=ctx.min_relations,
        question=state["question"],
        research=state["kind"] == "research",
    )


@timed("expand_entity")
@with_run
def expand_entity(task: dict, run: Run) -> dict:
    """One branch per entity: evidence search, and (learning before the answer) relation scoring and the write."""
    ctx, res = run.context, run.resources
    if ctx.learn != "before":
        found = search(task["entity"], task["question"], res=res, ctx=ctx)
        kept = {"records": found["records"], "texts": found["texts"]}
        return {"evidence": {task["entity"]["key"]: kept}, "degradations": found["degradations"]}
    done = expand(task["entity"], task["question"], others=task["entities"], res=res, ctx=ctx)
    return {
        "evidence": {task["entity"]["key"]: {"records": done["records"], "texts": done["texts"]}},
        "new_relations": done["new_relations"],
        "degradations": done["degradations"],
        "llm_calls": done["llm_calls"],
        "tokens": done["tokens"],
    }


@timed("search_claim")
@with_run
def search_claim(task: dict, run: Run) -> dict:
    """A research question's own literature search: the question is the query, as a user types it into PubMed."""
    found = search_evidence(task["question"], run.resources.evidence, sources=["pubmed"], k=CLAIM_PAPERS)
    kept = {"records": found["records"], "texts": found["texts"]}
    return {"evidence": {CLAIM: kept}, "degradations": found["degradations"]}


@timed("traverse")
@with_run
def traverse(state: QAState, run: Run) -> Update:
    """The question's subgraph, and once for every node after it: the paths the model sees (``shown``) and the facts
    on the point the question asks (``on_point``)."""
    ctx, res = run.context, run.resources
    query = " ".join([state["question"], *state.get("options", {}).values()])
    subgraph = traverse_subgraph(
        state["entities"],
        res.store,
        settings=TraversalSettings.of(ctx),
        question=state["question"],
        query=query,
        embed=res.embed,
    )["subgraph"]
    update: dict[str, object] = {"subgraph": subgraph}
    claimed = state.get("evidence", {}).get(CLAIM)
    papers = [r["id"] for r in (claimed.get("records", []) if claimed else [])]
    if not papers and _kind(state) == "research":  # nothing searched: the papers the graph kept, as a search finds
        keys = [e["key"] for e in state.get("entities", [])]
        kept = kept_papers(state["question"], keys, subgraph=subgraph, store=res.store, k=CLAIM_PAPERS)
        if kept:
            update["evidence"] = {KEPT: {"records": kept, "texts": {p["id"]: p["snippet"] for p in kept}}}
            papers = [p["id"] for p in kept]
    if papers:
        subgraph = without_studies(subgraph)
        update["subgraph"] = subgraph
    update["shown"] = shown_paths(subgraph["nodes"])
    update["on_point"] = answering_nodes(state["question"], state.get("entities", []), subgraph["nodes"])
    return update


@timed("differential")
@with_run
def differential(state: QAState, run: Run) -> Update:
    """Candidate diagnoses for the case's findings, and follow-up questions when the leaders are close."""
    ctx, res = run.context, run.resources
    record = state.get("record")
    own = frozenset({record}) if record else frozenset()
    text = "" if record else state.get("question", "")  # a record's case is its findings, not words to read again
    entities, answered = state.get("entities", []), state.get("findings") or {}
    index = res.patient_index
    update = differentiate(entities, res.store, answered=answered, text=text, index=index, exclude=own)
    if record or index is None:
        update["differential"] = with_levels(update["differential"], res.store)
        return update
    if ctx.records_withheld:  # the model reads the graph's differential; the one with your patients is only shown
        graph_only = differentiate(entities, res.store, answered=answered, text=text)
        host = urlsplit(ctx.openai_base_url).hostname
        notice = (
            f"Your patient records were not sent to the model at {host}: it read the knowledge graph's differential; "
            "the similar patients and the differential with your records are shown beside its answer "
            "(AMG_RECORDS_REMOTE=allow sends them)."
        )
        return {
            "differential": with_levels(graph_only["differential"], res.store),
            "follow_up": graph_only["follow_up"],
            "similar": update["similar"],
            "records_differential": with_levels(update["differential"], res.store),
            "notices": [*(state.get("notices") or []), notice] if update["similar"] else state.get("notices") or [],
        }
    update["differential"] = with_levels(update["differential"], res.store)
    return update


@timed("record_answer")
@with_run
def record_answer_node(state: QAState, run: Run) -> dict:
    """A stored patient's diagnosis, written from its differential without a model (agents/record_diagnosis.py)."""
    res = run.resources
    update = record_answer(state.get("differential") or [], state.get("similar") or [], store=res.store)
    update["messages"] = [AIMessage(chat_reply({**state, **update}))]
    return update


def asked(state: QAState, entities: list[QuestionEntity] | None = None) -> Asked:
    return Asked(
        state["question"],
        state.get("options", {}),
        entities=entities or state.get("entities", []),
        dialogue=state.get("dialogue", []),
    )


def is_open(state: QAState) -> bool:
    """An exam question asked without options: answered by the model's own draft, read against the graph."""
    return _kind(state) == "exam" and not state.get("options")


@timed("reason")
@with_run
def reason_node(state: QAState, run: Run) -> dict:
    ctx, res = run.context, run.resources
    subgraph = state.get("subgraph") or NO_SUBGRAPH
    nodes, links, shown = subgraph["nodes"], subgraph["links"], state.get("shown") or {}
    if is_open(state):  # the evidence behind the facts on the point; the model's own answer came from ``draft``
        on_point = state.get("on_point") or []
        index = number_evidence(
            on_point,
            fetched(state),
            store=res.store,
            links=links,
            differential=state.get("differential", []),
            shown=_by_seed(on_point),
        )
        return {"evidence_index": with_lead_text(index, fetched_texts(state))}
    index = number_evidence(
        nodes, fetched(state), store=res.store, links=links, differential=state.get("differential", []), shown=shown
    )
    index = with_lead_text(index, fetched_texts(state))
    if _kind(state) == "research":
        index = with_stored_lead(index, links)
        return {"evidence_index": index, "reading": study_reading(index, links)}
    found = Found(nodes, links, evidence_index=index, differential=state.get("differential", []), shown=shown)
    update = reason(asked(state), found, llm=res.llm, per_entity=ctx.per_entity_reasoning)
    return {**update, "evidence_index": index}


@timed("draft")
@with_run
def _draft(state: QAState, run: Run) -> Update:
    return draft_answer(asked(state), run.resources.llm, run.context.answer_samples)


def draft(state: QAState, runtime: Runtime[Context]) -> Update:
    """An open question's draft, the model's own answer, made while the graph's evidence is searched (``after_gaps``);
    nothing for any other question (the branch exists for every question that is reasoned, so ``reason`` always
    joins it)."""
    return _draft(state, runtime) if is_open(state) else {}


def _by_seed(paths: list[GraphPath]) -> dict[str, list[GraphPath]]:
    """Paths grouped by the question entity they start from, as ``shown`` is (the facts on the point, shown)."""
    grouped: dict[str, list[GraphPath]] = {}
    for path in paths:
        grouped.setdefault(path["seed_key"], []).append({**path, "hidden": False})
    return grouped


def _reading_mode(state: QAState) -> str | None:
    """The evidence mode whose confidence map fits this answer's reading: a research question that reads a paper at
    length (its search's best match, or the paper the graph kept) reads as hybrid first read it, offline too, so
    hybrid's map is the one fitted on that reading; otherwise the run's own mode (None)."""
    papers = [found.get("records") for key in (CLAIM, KEPT) if (found := state.get("evidence", {}).get(key))]
    return "hybrid" if _kind(state) == "research" and any(papers) else None


@timed("answer")
@with_run
def answer(state: QAState, run: Run) -> Update:
    ctx, res = run.context, run.resources
    subgraph, kind = state.get("subgraph") or NO_SUBGRAPH, _kind(state)
    index = state.get("evidence_index", [])
    shown, on_point = state.get("shown") or {}, state.get("on_point") or []
    ends = [n["key"] for n in on_point]
    entities, aliases = with_aliases(state.get("entities", []), res.store, ends=ends)  # one read of the graph
    found = Found(
        subgraph["nodes"],
        subgraph["links"],
        evidence_index=index,
        fetched_ids=fetched_ids(state),
        differential=state.get("differential", []),
        shown=shown,
        on_point=on_point,
    )
    calibration = res.calibration(kind=confidence_kind(kind, state.get("options", {})), mode=_reading_mode(state))
    if state.get("draft"):
        if ctx.evidence_mode != "offline" and "textbook" in ctx.sources:  # the draft's own sentence, searched
            query = f"{state['question']} {state['draft']['answer']}"
            batch = res.evidence.find_evidence(query, ["textbook"], k=SUPPORT_PASSAGES)
            found = with_passages(found, batch.records, batch.texts)
        reading = extraction_reliability(res.model_name)
        answered = review(
            asked(state, entities),
            found,
            draft=state["draft"],
            llm=res.llm,
            aliases=aliases,
            calibration=calibration,
            reading=reading,
            embed=res.embed,
        )
    else:
        answered = synthesize(
            asked(state, entities),
            found,
            llm=res.llm,
            calibration=calibration,
            reading=extraction_reliability(res.model_name),
            preface=state.get("reading", ""),
            rests_on=studies_read(index, subgraph["links"]) if kind == "research" else [],
        )
    update: dict[str, object] = {**answered}
    named = spot_entities(answered["answer"], res.linker)
    update["topic"] = topic_of(entities, answered["answer"], named)
    if ctx.learn == "after" and answered.get("citations") and fetched_ids(state):
        update["answer_entities"] = named
    read = " ".join([answered["answer"], *(c.get("quote") or "" for c in answered.get("citations") or [])])
    seen = [n for paths in shown.values() for n in paths]
    update["glossary"] = glossary(
        res.store, [*state.get("entities", []), *named], shown=seen, links=subgraph["links"], read=read
    )
    update["messages"] = [AIMessage(chat_reply({**state, **update}))]
    return update


def after_prepare(state: QAState) -> str:
    if state.get("answer"):
        return END
    return "differential" if state.get("record") else "parse_query"


def after_differential(state: QAState) -> list[str]:
    """A stored patient's case is answered from its differential; any other goes on to ``reason`` (the join edge)."""
    return ["record_answer"] if state.get("record") else []


def after_parse(state: QAState) -> str:
    if _kind(state) == "claim":
        return "find_papers"
    if is_open(state) or state.get("entities") or _kind(state) == "research":
        return "check_gaps"
    return "answer"


@with_run
def after_gaps(state: QAState, run: Run) -> list:
    """The evidence searches for the gaps (or the traversal when none is searched), and beside them the ``draft``:
    LangGraph runs a step's nodes together and starts the next step when all are done, so the draft shares the
    step of the slowest work that does not need it (the searches), and ``reason`` joins both branches."""
    return [*_searches(state, run.context), "draft"]


def _searches(state: QAState, ctx: Context) -> list:
    if ctx.evidence_mode == "offline" or not ctx.sources:
        return ["traverse"]
    if state.get("claim_gap") and "pubmed" in ctx.sources:
        return [Send("search_claim", {"question": state["question"]})]
    targets = state["entities"] if ctx.evidence_mode == "dynamic" else state.get("gaps", [])
    if not targets:
        return ["traverse"]
    return [
        Send("expand_entity", {"entity": e, "question": state["question"], "entities": state["entities"]})
        for e in targets
    ]


builder = StateGraph(QAState, context_schema=Context, input_schema=QAInput)
builder.add_node("prepare", prepare)
builder.add_node("parse_query", parse)
builder.add_node("check_gaps", check_gaps)
builder.add_node("expand_entity", expand_entity)
builder.add_node("search_claim", search_claim)
builder.add_node("traverse", traverse)
builder.add_node("differential", differential)
builder.add_node("draft", draft)
builder.add_node("reason", reason_node)
builder.add_node("answer", answer)
builder.add_node("record_answer", record_answer_node)
builder.add_node("learn_entity", learn_entity)
builder.add_node("learn_study", learn_study)
builder.add_node("find_papers", find_claim_papers)
builder.add_node("read_stances", read_stances)
builder.add_node("weigh_claim", weigh_claim)
builder.add_node("learn_claim", learn_claim)
builder.add_edge(START, "prepare")
builder.add_conditional_edges("prepare", after_prepare, ["parse_query", "differential", END])
builder.add_conditional_edges("parse_query", after_parse, ["check_gaps", "answer", "find_papers"])
builder.add_conditional_edges("check_gaps", after_gaps, ["expand_entity", "search_claim", "traverse", "draft"])
builder.add_edge("expand_entity", "traverse")
builder.add_edge("search_claim", "traverse")
builder.add_edge("traverse", "differential")
builder.add_edge(["draft", "differential"], "reason")  # waits for both branches, whichever ends last
builder.add_conditional_edges("differential", after_differential, ["record_answer"])
builder.add_edge("record_answer", END)
builder.add_edge("reason", "answer")
builder.add_conditional_edges("answer", after_answer, ["learn_entity", "learn_study", END])
builder.add_edge("learn_entity", END)
builder.add_edge("learn_study", END)
builder.add_edge("find_papers", "read_stances")
builder.add_edge("read_stances", "weigh_claim")
builder.add_conditional_edges("weigh_claim", after_weighing, ["learn_claim", END])
builder.add_edge("learn_claim", END)
graph = builder.compile(name="AMG QA")
