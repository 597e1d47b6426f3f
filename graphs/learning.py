"""Learning after the answer: what the question fetched is scored into the graph for the next question.

Each searched entity's evidence goes to the relation scorer, and so does the cited evidence for what
the answer names besides the question's entities (the demo's "metformin"); a research question's
own search gives the finding of the paper the answer cites (else its best match) to the finding
reader. Nothing is learned from a paper PubMed retracted or deleted. A fault here (a model timeout, the
graph gone) is reported beside the answer and counted; it never loses the answer.
"""

from __future__ import annotations

from functools import wraps

from langgraph.graph import END
from langgraph.runtime import Runtime
from langgraph.types import Send

from amg.agents.answer_synthesizer.answer_lines import verdicts
from amg.agents.evidence_searcher import KeptEvidence
from amg.agents.finding_reader.reader import learn_finding
from amg.graphs.context import Context
from amg.graphs.expansion import learn
from amg.graphs.run import Run, with_run
from amg.graphs.state import CLAIM, KEPT, QAState, fetched, fetched_texts
from amg.graphs.timing import timed
from amg.tools.kg.pipeline_types import withdrawn
from amg.tools.kg.records import EvidenceFields
from amg.tools.kg.store.connection import GraphUnavailable
from amg.tools.llm.chat import ModelUnavailable

MAX_ANSWER_ENTITIES = 2  # entities the answer names that are learned about after it (one scoring call each)


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
@with_run
def learn_entity(task: dict, run: Run) -> dict:
    """After the answer, one branch per entity: its evidence scored into the graph for the next question."""
    ctx = run.context
    done = learn(
        task["entity"], task["question"], others=task["entities"], found=task["found"], res=run.resources, ctx=ctx
    )
    return {
        "new_relations": done["new_relations"],
        "degradations": done["degradations"],
        "llm_calls": done["llm_calls"],
        "tokens": done["tokens"],
    }


@timed("learn")
@after_the_answer
@with_run
def learn_study(task: dict, run: Run) -> dict:
    """After a research question's answer: the finding of the paper it rests on, with its PMID."""
    ctx = run.context
    res = run.resources
    done = learn_finding(
        task["question"],
        task["entities"],
        paper=task["paper"],
        text=task["text"],
        reader=res.reader(ctx.keep_score),
        store=res.store,
        verdict=task["verdict"],
    )
    return {
        "new_relations": done["new_relations"],
        "llm_calls": done["llm_calls"],
        "tokens": done["tokens"],
        "degradations": [f"finding reader: {why}" for why in done["refused"]],
    }


@with_run
def after_answer(state: QAState, run: Run):
    """Where the answer's learning goes (see the module docstring): finding reader or relation scorer branches."""
    evidence = {key: found for key, found in (state.get("evidence") or {}).items() if key != KEPT}
    state = {**state, "evidence": evidence}  # the papers the graph kept are not read again (agents/kept_papers.py)
    if run.context.learn != "after" or not evidence:
        return END
    if CLAIM in evidence:
        return _study_to_learn(state, evidence[CLAIM])
    tasks = [
        (e, searched)
        for e in state.get("entities", [])
        if (searched := evidence.get(e["key"])) and searched.get("records")
    ]
    cited = {c["evidence_id"] for c in state.get("citations", [])}
    backing = KeptEvidence(
        records=[r for r in fetched(state) if r["id"] in cited],
        texts={i: t for i, t in fetched_texts(state).items() if i in cited},
    )
    asked = {e["key"] for e in state.get("entities", [])}
    named = [e for e in state.get("answer_entities", []) if e["key"] not in asked][:MAX_ANSWER_ENTITIES]
    tasks += [(e, backing) for e in named if backing["records"]]
    everyone = [*state.get("entities", []), *named]
    return [
        Send("learn_entity", {"entity": e, "question": state["question"], "entities": everyone, "found": found})
        for e, found in tasks
    ] or END


def withdrawn_paper(state: QAState, paper: EvidenceFields) -> bool:
    """Whether the paper was retracted or deleted, by its record or as the answer's evidence item says."""
    numbered = {e["id"]: e for e in state.get("evidence_index", [])}
    return withdrawn(paper) or withdrawn(numbered.get(paper["id"], {}))


def _study_to_learn(state: QAState, found: KeptEvidence) -> str | list[Send]:
    """The paper the answer cites among the question's own search (else its best match), to learn its finding."""
    cited = [c["evidence_id"] for c in state.get("citations", [])]
    papers = sorted(found.get("records", []), key=lambda r: r["id"] not in cited)
    if not papers or papers[0]["id"] not in found.get("texts", {}) or withdrawn_paper(state, papers[0]):
        return END  # nothing to read, or PubMed withdrew the paper: nothing is learned from it
    paper, options = papers[0], state.get("options", {})
    verdict = options.get(state.get("option") or "", "") if verdicts(options) else ""  # what the answer read in it
    return [
        Send(
            "learn_study",
            {
                "question": state["question"],
                "entities": state.get("entities", []),
                "paper": paper,
                "text": found["texts"][paper["id"]],
                "verdict": verdict,
            },
        )
    ]
