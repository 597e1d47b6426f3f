"""Open answers' confidence: the model's P(True) and the support of what it cites, mapped per model; the
open-answer judge of `amg bench --open`. Scripted model, real graph."""

from __future__ import annotations

import numpy as np
import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver

from amg.agents.answer_synthesizer.self_check import answer_likelihood
from amg.evaluation.map_fitting import fit_open_map
from amg.evaluation.open_answers import judged_option, verdict_of
from amg.graphs.context import Context
from amg.graphs.qa_graph import builder
from amg.graphs.reply import UNCALIBRATED
from amg.graphs.resources import Resources, install
from amg.testing.scripted_llm import answer_lines, asks_for_answer, asks_to_verify, prompt_text, verdict
from amg.tools.kg.records import EntityRecord, EvidenceRecord, RelationRecord
from amg.tools.llm.confidence_maps import MAPS, CalibrationMap
from amg.tools.question_kinds import confidence_kind
from benchmarks.calibration import evaluate_open

PAPER = EvidenceRecord(
    id="pmid:31000001",
    kind="pubmed",
    pmid="31000001",
    title="Metformin in type 2 diabetes.",
    snippet="Metformin is the first-line drug for type 2 diabetes mellitus.",
)
CREATINE = EvidenceRecord(id="vocab:chebi:CHEBI:16919", kind="vocabulary", title="CHEBI:16919 creatine (ChEBI)")
ANSWER = "Metformin is used for treating type 2 diabetes mellitus."


def numbered(body: dict, title: str) -> list[int]:
    import re

    return [
        int(n)
        for n, line in re.findall(r"^\[(\d+)\] \([^)]*\) (.*)$", prompt_text(body), re.M)
        if line.startswith(title)
    ]


@pytest.fixture
def ask(store, scripted_server, tmp_path):
    store.upsert(
        entities=[EntityRecord("Metformin", "drug"), EntityRecord("Creatine", "drug")],
        evidence=[PAPER, CREATINE],
        relations=[
            RelationRecord("Metformin", "Type 2 diabetes mellitus", "treats", 0.9, [PAPER.id]),
            RelationRecord("Creatine", "Guanidines", "is_a", 1.0, [CREATINE.id]),
        ],
    )
    state = {"p_yes": 0.95, "cite": "Metformin in"}

    def respond(body: dict) -> dict:
        if asks_to_verify(body):
            return verdict(state["p_yes"])
        if asks_for_answer(body):
            return answer_lines(answer=ANSWER, confidence=0.9, citations=numbered(body, state["cite"]))
        return {"content": "Metformin."}

    server = scripted_server(respond)
    llm = ChatOpenAI(base_url=server.base_url, api_key="t", model="scripted", temperature=0)
    graph = builder.compile(checkpointer=InMemorySaver())

    def run(question: str, open_map: CalibrationMap | None = None, thread: str = "t") -> dict:
        ctx = Context(
            data_dir=str(tmp_path),
            evidence_mode="offline",
            query_parser="vocabulary",
            path_ranking="confidence",
            min_path_relevance=0.0,
        )
        res = Resources(ctx, store=store, llm=llm)
        res.calibration = lambda method="kg", kind="exam": open_map if kind == "open" else None
        install(res)
        return graph.invoke(
            {"messages": [HumanMessage(question)]}, {"configurable": {"thread_id": thread}}, context=ctx
        )

    return run, state, server


def test_an_unsupported_open_answer_loses_its_citation_and_prints_a_low_uncalibrated_confidence(ask):
    run, state, _ = ask
    state["cite"] = "CHEBI:16919"
    result = run("What is metformin used for?")
    basis = result["confidence_basis"]
    assert result["citations"] == [] and basis["source"] == "verification probability"
    assert basis["p_true"] == pytest.approx(0.95, abs=1e-3) and basis["calibrated"] is False
    assert result["confidence"] == pytest.approx(0.475, abs=1e-3), "P(True) x (1/2 + 1/2 x support 0)"
    assert UNCALIBRATED.strip() in result["messages"][-1].content


def test_the_models_doubt_lowers_a_supported_answers_confidence(ask):
    run, state, _ = ask
    sure = run("What is metformin used for?", thread="a")["confidence"]
    state["p_yes"] = 0.2
    doubtful = run("What is metformin used for?", thread="b")
    assert doubtful["citations"] and doubtful["confidence"] < sure
    assert doubtful["confidence"] == pytest.approx(
        0.2 * (0.5 + 0.5 * doubtful["confidence_basis"]["support"]), abs=1e-3
    )


def test_the_open_map_is_applied_and_marked_calibrated(ask):
    run, _, _ = ask
    cmap = CalibrationMap(a=1.0, b=2.0, c=-1.0)
    result = run("What is metformin used for?", open_map=cmap)
    basis = result["confidence_basis"]
    assert basis["calibrated"] is True and result["confidence"] == pytest.approx(
        cmap(basis["p_true"], basis["support"]), abs=1e-3
    )
    assert UNCALIBRATED.strip() not in result["messages"][-1].content


def test_an_open_question_asking_whether_a_claim_holds_is_not_calibrated_by_the_open_map(ask):
    """Its yes / no answer leans differently: the research-open map or none, never the exam-like open one."""
    run, _, _ = ask
    result = run("Is metformin used for type 2 diabetes mellitus?", open_map=CalibrationMap(a=1.0, b=2.0, c=-1.0))
    assert result["confidence_basis"]["calibrated"] is False
    assert confidence_kind("Is metformin used for it?", {}) == "research-open"
    assert confidence_kind("What is metformin used for?", {}) == "open"
    assert confidence_kind("Is it?", {"A": "yes", "B": "no", "C": "maybe"}) == "research"


def test_the_answer_check_stays_out_of_the_conversation(ask):
    run, _, server = ask
    result = run("What is metformin used for?")
    assert sum(asks_to_verify(b) for b in server.requests) == 1
    assert not any("Is the answer you just gave correct" in t["content"] for t in result["dialogue"])


def test_an_open_map_fitted_on_rows_is_monotone_in_p_true():
    rng = np.random.default_rng(0)
    rows = []
    for i in range(300):
        p = float(rng.uniform(0.05, 0.95))
        rows.append({"correct": bool(rng.uniform() < 0.2 + 0.6 * p), "confidence_basis": {"p_true": p, "support": 0.5}})
    cmap = fit_open_map(rows, {})
    printed = [cmap(p, 0.5) for p in np.linspace(0.01, 0.99, 50)]
    assert cmap.a > 0 and all(b > a for a, b in zip(printed, printed[1:]))


@pytest.mark.parametrize(
    "answer, expected",
    [
        ("Yes, medical students can contribute.", "yes"),
        ("Medical students can contribute to quality assurance.", "yes"),
        ("No. The trial found no benefit.", "no"),
        ("Laparoscopy does not reduce pain after surgery.", "no"),
        ("It may reduce mortality, but the evidence is inconclusive.", "maybe"),
        ("There is no role for leukocyte and CRP measurements in the elderly.", "no"),
        ("It is not clear whether the INR is reliable.", "maybe"),
    ],
)
def test_an_open_answer_commits_to_a_verdict(answer, expected):
    assert verdict_of(answer) == expected


def test_an_open_answer_is_judged_by_the_option_it_names_or_the_nearest():
    options = {"A": "Lateral wall", "B": "Medial wall", "C": "Floor", "D": "Roof"}
    vectors = {
        "The orbital base fractures.": [0.9, 0.44],
        "Lateral wall": [0, 1],
        "Medial wall": [0.6, 0.8],
        "Floor": [0.8, 0.6],
        "Roof": [0, 1],
    }

    def embed(texts):
        return np.array([vectors.get(t, [0, 1]) for t in texts], dtype=float)

    assert judged_option("The medial wall is the thinnest.", options, embed) == "B", "named word for word"
    assert judged_option("The orbital base fractures.", options, embed) == "C", "the nearest by the embedder"
    assert judged_option("No.", {"A": "yes", "B": "no", "C": "maybe"}, embed) == "B"
    assert judged_option("", options, embed) is None


def test_the_answers_likelihood_is_read_from_the_tokens_that_wrote_it():
    steps = [
        {"token": t, "logprob": lp}
        for t, lp in [
            ("Answer", 0.0),
            (":", 0.0),
            (" Met", np.log(0.5)),
            ("formin", np.log(0.5)),
            (".", 0.0),
            ("\n", -5.0),
        ]
    ]
    said = "Answer: Metformin.\n"
    assert answer_likelihood(steps, said, "Metformin.") == pytest.approx((0.5 * 0.5 * 1.0) ** (1 / 3))
    assert answer_likelihood(None, said, "Metformin.") is None and answer_likelihood(steps, said, "Insulin") is None


def test_a_map_on_the_answers_likelihood_reads_it(ask):
    run, _, _ = ask
    cmap = CalibrationMap(a=1.0, b=0.0, c=0.0, about={"feature": "p_answer"})
    result = run("What is metformin used for?", open_map=cmap)
    assert "p_answer" not in result["confidence_basis"], "the scripted endpoint sent no token probabilities"
    assert result["confidence_basis"]["source"] == "stated" and result["confidence_basis"]["calibrated"] is False


def test_the_calibration_keeps_the_probability_that_tells_right_from_wrong():
    rng = np.random.default_rng(1)
    rows = []
    for i in range(400):
        right = bool(rng.uniform() < 0.4)
        rows.append(
            {
                "id": f"q{i}",
                "correct": right,
                "confidence_basis": {
                    "p_true": 0.9,
                    "p_answer": float(rng.uniform(0.6, 0.95) if right else rng.uniform(0.3, 0.7)),
                    "support": 0.5,
                    "stated": 0.9,
                },
            }
        )
    figures, (cmap, printed, correct) = evaluate_open("kg-offline-open", rows, "m", "d")
    assert figures["chosen_feature"] == "p_answer" == cmap.about["feature"]
    assert figures["p_answer"]["auroc"] > 0.9 and figures["p_true"]["auroc"] == 0.5
    assert figures["p_answer"]["ece_calibrated"] < 0.1 and len(printed) == figures["n_eval"]


def test_every_shipped_open_map_is_monotone():
    shipped = sorted(MAPS.glob("*open.json"))
    assert shipped, "an open-answer map ships for the default model"
    for path in shipped:
        cmap = CalibrationMap.load(path)
        grid = np.linspace(0.01, 0.99, 25)
        for support in (0.0, 0.5, 1.0):
            printed = [cmap(p, support) for p in grid]
            assert all(b >= a for a, b in zip(printed, printed[1:])), path.name
        assert cmap(0.5, 1.0) >= cmap(0.5, 0.0), f"{path.name}: support never lowers the confidence"
        assert cmap.about["feature"] in ("p_true", "p_answer") and cmap.about["n_eval"] > 0
