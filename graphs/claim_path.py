"""The QA graph's path for a claim (question kind "claim"): the papers that bear on it, each one's stance with the
sentences that settle it, the verdict across them, and after the answer each paper's findings learned with those
sentences (agents/claim_checker/).

Hybrid and dynamic modes find papers in the local literature index (BM25, re-ranked by the sentences' closeness to
the claim: tools/literature/claim_search.py); offline mode reads the papers the graph's findings rest on, from the
sentences they kept. Either way the same stance step reads them.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime
from langgraph.types import Send

from amg.agents.claim_checker.findings import learn_claim_paper
from amg.agents.claim_checker.from_graph import papers_from_graph
from amg.agents.claim_checker.paper import ClaimPaper, Sentence
from amg.agents.claim_checker.stance import read_papers, shown_sentences
from amg.agents.claim_checker.verdict import weigh
from amg.graphs.context import Context
from amg.graphs.learning import after_the_answer
from amg.graphs.reply import chat_reply
from amg.graphs.run import Run, with_run
from amg.graphs.state import QAState
from amg.graphs.timing import timed
from amg.tools.literature.claim_search import find_papers
from amg.tools.literature.pubmed_xml import Article
from amg.tools.llm.confidence_maps import extraction_reliability
from amg.tools.llm.structured import Usage

CLAIM_PAPERS = 3  # papers read per claim: a gold abstract is in the top 3 for most claims (benchmarks/claim_retrieval)
NO_INDEX = "no local literature index: build one with `amg ingest papers FILE…` (or `amg ingest pubmed FILE…`)"


def _paper(claim: str, article: Article, *, scores: list[float], relevance: float, score: float) -> ClaimPaper:
    sentences = [Sentence(n=n, text=text) for n, text in enumerate(article.numbered())]
    return {
        "id": article.evidence_id,
        "title": article.display_title,
        "url": article.url,
        "year": article.year,
        "pmid": article.pmid or None,
        "doi": article.doi,
        "kind": "pubmed",
        "source": "index",
        "score": round(score, 4),
        "relevance": relevance,
        "sentences": sentences,
        "shown": shown_sentences(claim, sentences, closeness=scores or [0.0] * len(sentences), length=len(sentences)),
    }


@timed("find_papers")
@with_run
def find_claim_papers(state: QAState, run: Run) -> dict:
    """The papers to read for the claim: from the index (hybrid, dynamic) or from the graph's findings (offline)."""
    ctx = run.context
    res = run.resources
    claim = state["claim"]
    if ctx.evidence_mode != "offline" and "pubmed" in ctx.sources:
        if res.literature is None:
            return {"papers": [], "degradations": [NO_INDEX]}
        found = find_papers(res.literature, claim, vectors=res.sentence_vectors, k=CLAIM_PAPERS)
        return {
            "papers": [
                _paper(claim, f.article, scores=f.sentence_scores, relevance=f.relevance, score=f.score) for f in found
            ]
        }
    papers = papers_from_graph(claim, [e["key"] for e in state.get("entities", [])], res.store)
    texts = [s["text"] for p in papers for s in p["sentences"]]
    vectors = res.embed([claim, *texts]) if texts else [[]]
    at = 1
    out: list[ClaimPaper] = []
    for paper in papers:
        scores = [sum(a * b for a, b in zip(vectors[0], vectors[at + i])) for i in range(len(paper["sentences"]))]
        at += len(paper["sentences"])
        relevance = round(max(scores, default=0.0), 4)
        shown = shown_sentences(claim, paper["sentences"], closeness=scores)
        out.append({**paper, "source": "graph", "score": relevance, "relevance": relevance, "shown": shown})
    return {"papers": sorted(out, key=lambda p: -p["score"])[:CLAIM_PAPERS]}


@timed("read_stances")
@with_run
def read_stances(state: QAState, run: Run) -> dict:
    """Each paper's stance on the claim, with the sentences that settle it (two one-word calls per paper read, and one
    for the claim's opposite)."""
    res = run.resources
    usage = Usage()
    papers = read_papers(state["claim"], state.get("papers", []), llm=res.llm, usage=usage)
    return {"papers": papers, **usage.as_update()}


def citations_of(papers: list[ClaimPaper]) -> list[dict[str, object]]:
    """The papers that take a side, numbered, each with its stance and settling sentences (verbatim, by number)."""
    cited: list[dict[str, object]] = []
    for paper in (p for p in papers if p["stance"] != "neither"):
        text_of = {s["n"]: s["text"] for s in paper["sentences"]}
        quoted = [{"n": n, "text": text_of[n]} for n in paper["rationale"] if n in text_of]
        cited.append(
            {
                "n": len(cited) + 1,
                "id": paper["id"],
                "evidence_id": paper["id"],
                "kind": paper["kind"],
                "pmid": paper.get("pmid"),
                "doi": paper.get("doi"),
                "title": paper["title"],
                "year": paper.get("year"),
                "url": paper.get("url"),
                "quote": quoted[0]["text"] if quoted else "",
                "stance": paper["stance"],
                "sentences": quoted,
            }
        )
    return cited


@timed("weigh_claim")
def weigh_claim(state: QAState, runtime: Runtime[Context]) -> dict:
    """The verdict across the papers, as the turn's answer."""
    papers = state.get("papers", [])
    verdict = weigh(papers)
    update = {
        "verdict": verdict,
        "answer": verdict["summary"],
        "confidence": verdict["confidence"],
        "confidence_basis": {"source": "paper stances", "counts": verdict["counts"], "calibrated": False},
        "citations": citations_of(papers),
    }
    update["messages"] = [AIMessage(chat_reply({**state, **update}))]
    return update


@timed("learn")
@after_the_answer
@with_run
def learn_claim(task: dict, run: Run) -> dict:
    """After the verdict, one branch per paper read: kept with the sentences read, and, when it took a side, its
    findings with the settling sentences."""
    res = run.resources
    done = learn_claim_paper(
        task["claim"],
        task["entities"],
        paper=task["paper"],
        llm=res.llm,
        model_name=res.model_name,
        reliability=extraction_reliability(res.model_name),
        store=res.store,
    )
    return {
        "new_relations": done["new_relations"],
        "llm_calls": done["llm_calls"],
        "tokens": done["tokens"],
        "degradations": [f"claim findings: {why}" for why in done["refused"]],
    }


@with_run
def after_weighing(state: QAState, run: Run):
    """Keep each paper found in the index that the stance step read, and learn the findings of those that took a
    side (what the graph read back needs neither)."""
    if run.context.learn == "off":
        return "__end__"
    tasks = [
        Send("learn_claim", {"claim": state["claim"], "entities": state.get("entities", []), "paper": paper})
        for paper in state.get("papers", [])
        if paper["source"] == "index" and paper.get("named")
    ]
    return tasks or "__end__"
