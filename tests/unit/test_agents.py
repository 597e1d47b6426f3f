"""Each agent's reading and answering alone, on a fake chat model and recorded evidence (no graph)."""

from __future__ import annotations

import pytest

from amg.agents.answer_synthesizer.answer_lines import pick_option, read_reply
from amg.agents.answer_synthesizer.synthesizer import NO_KNOWLEDGE, bounded_by_differential, synthesize
from amg.agents.query_parser import read_mentions
from amg.agents.reasoner import (
    LEAD_CHARS,
    RATIONALE_CHARS,
    conclusion,
    differential_context,
    evidence_block,
    reason,
    with_lead_text,
)
from amg.testing.fakes import FakeChat, chat
from amg.tools.kg.pipeline_types import Asked, Found


def test_entity_lines_are_read_leniently():
    reply = "- Metformin | drug\n* `lactic acidosis` | Phenotype\nT2DM\nHere are the entities:\n"
    assert read_mentions(reply) == [("Metformin", "drug"), ("lactic acidosis", "phenotype"), ("T2DM", "other")]
    echoed = "term | type\n---|---\ndrugs | drug\nEpiglottis | anatomy"
    assert read_mentions(echoed) == [("Epiglottis", "anatomy")], "the format's own words are not entities"


def test_answer_without_entities_invents_nothing():
    llm = chat()
    out = synthesize(Asked("What is the capital of France?", {}, entities=[], dialogue=[]), Found(), llm=llm)
    assert out["answer"] == NO_KNOWLEDGE and out["confidence"] == 0.0 and llm.calls == []


def test_answer_lines_are_read_leniently():
    options = {"A": "Insulin", "B": "Metformin", "C": "Aspirin"}
    reply = read_reply("Sure.\n**Option:** (c)\nConfidence: 70%\nCitations: [2], [3]", options)
    assert (reply.option, reply.confidence, reply.citations) == ("C", 0.7, [2, 3])
    assert read_reply("Answer: Metformin [4].\nCitations: 1", {}).citations == [1, 4]
    assert read_reply("Answer: B\nConfidence: 8/10", options).confidence == 0.8
    assert (
        read_reply("The answer is A.", options).option == "A" and read_reply("Answer is A", options).confidence == 0.5
    )
    assert read_reply("Option: <Z>\nConfidence: 0.9", options) is None
    assert read_reply("Answer: Metformin lowers hepatic glucose output.\nCitations: none", {}).answer.startswith(
        "Metformin"
    )
    assert read_reply("Confidence: 0.9", {}) is None, "an open answer needs its Answer line"
    run_on = read_reply("Answer: Metformin; diarrhea is common. Confidence: 0.68; Citations: [1]", {})
    assert (run_on.answer, run_on.confidence, run_on.citations) == ("Metformin; diarrhea is common.", 0.68, [1])


def test_option_parsing():
    options = {"A": "Insulin", "B": "Metformin", "C": "Aspirin"}
    assert pick_option(None, "The answer is (C)", options) == "C"
    assert pick_option("", "I would give metformin.", options) == "B"
    assert pick_option("Z", "no idea", options) is None


def test_unusable_answer_is_repaired_once_then_degrades():
    options = {"A": "Insulin", "B": "Metformin"}
    replies = iter(["I am not sure.", "Option: B\nConfidence: 0.6"])
    repaired = FakeChat(responder=lambda req: {"content": next(replies)}, calls=[])
    out = synthesize(Asked("First-line drug?", options, entities=[{"key": "x"}], dialogue=[]), Found(), llm=repaired)
    assert out["option"] == "B" and out["llm_calls"] == 2 and not out.get("degradations")
    assert "did not follow the format" in repaired.calls[1]["prompt"]
    hopeless = chat(text={"content": "Option: Z"})
    out = synthesize(Asked("First-line drug?", options, entities=[{"key": "x"}], dialogue=[]), Found(), llm=hopeless)
    assert out["llm_calls"] == 2 and out["option"] is None and out["confidence"] == 0.0 and out["degradations"]


def test_a_request_the_endpoint_rejects_degrades_instead_of_crashing():
    import httpx
    import openai

    def too_long(req):
        request = httpx.Request("POST", "http://x/v1/chat/completions")
        raise openai.BadRequestError(
            "maximum context length is 4096 tokens", response=httpx.Response(400, request=request), body=None
        )

    llm = FakeChat(responder=too_long, calls=[])
    entities = [{"key": "x", "name": "X", "type": "other"}]
    skipped = reason(
        Asked("q?", {}, entities=entities, dialogue=[{"role": "user", "content": "q?"}]),
        Found(),
        llm=llm,
        per_entity=False,
    )
    assert skipped["reasoning"] == {"all": ""} and skipped["degradations"] and len(skipped["dialogue"]) == 1
    dialogue = [{"role": "user", "content": "q?"}, {"role": "assistant", "content": "r" * 50_000}]
    out = synthesize(Asked("q?", {"A": "x", "B": "y"}, entities=[{"key": "x"}], dialogue=dialogue), Found(), llm=llm)
    assert out["confidence"] == 0.0 and out["degradations"] and out["dialogue"] == dialogue
    assert len(llm.calls) == 2, "a rejected request is not repaired"


def test_the_rationale_is_cut_between_words():
    last = "Metformin is first-line and its most common adverse effects are gastrointestinal " * 6
    cut = conclusion("Step one.\n" + last.strip() + ".")
    assert len(cut) <= RATIONALE_CHARS + 3 and cut.endswith("...") and last.startswith(cut[:-3] + " ")


def test_the_rationale_leaves_out_a_sentence_cut_at_the_token_cap():
    chain = "The graph says metformin treats T2DM (0.90). Its adverse effects are mostly GI (e.g. diarrhea).\nSo the"
    assert conclusion(chain) == "Its adverse effects are mostly GI (e.g. diarrhea)."
    assert conclusion("So the answer is") == "So the answer is", "nothing complete: what there is"


DIFFERENTIAL = [
    {
        "name": "Marfan syndrome",
        "probability": 0.6,
        "subtypes": ["Neonatal Marfan syndrome"],
        "frequencies": {"Arachnodactyly": 0.63, "Ectopia lentis": 0.47},
    },
    {
        "name": "Loeys-Dietz syndrome",
        "probability": 0.03,
        "subtypes": ["Loeys-Dietz syndrome 1"],
        "frequencies": {"Arachnodactyly": 0.69},
    },
]


def test_an_open_diagnosis_is_no_likelier_than_the_candidate_it_names():
    assert bounded_by_differential("Loeys-Dietz syndrome 1", 0.96, DIFFERENTIAL)[0] == 0.03, "a subtype counts"
    assert bounded_by_differential("Marfan syndrome.", 0.96, DIFFERENTIAL)[0] == 0.6
    assert bounded_by_differential("Marfan syndrome.", 0.4, DIFFERENTIAL)[0] == 0.4, "a bound, never a raise"
    assert bounded_by_differential("Start a beta blocker", 0.9, DIFFERENTIAL)[0] == 0.9, "names no candidate"
    assert bounded_by_differential("Anything", 0.9, [])[0] == 0.9, "no case, no bound"


def test_the_reasoner_sees_a_cases_differential_but_not_one_findings():
    shown = differential_context(DIFFERENTIAL)
    assert "Marfan syndrome 0.60 (Arachnodactyly in 63% of patients, Ectopia lentis in 47% of patients)" in shown
    assert differential_context([{**DIFFERENTIAL[1], "probability": 0.9}]) == "", "one finding is not a case"


def test_an_open_diagnosis_citing_its_candidates_annotations_is_supported_and_bounded():
    index = [{"n": 1, "id": "pmid:28050285", "kind": "pubmed", "title": "Marfan cohort"}]
    differential = [{**DIFFERENTIAL[0], "evidence_ids": ["pmid:28050285"]}, DIFFERENTIAL[1]]
    llm = chat(text={"content": "Answer: Marfan syndrome\nConfidence: 0.9\nCitations: 1"})
    out = synthesize(
        Asked("Arachnodactyly and ectopia lentis?", {}, entities=[{"key": "arachnodactyly"}], dialogue=[]),
        Found([], [], evidence_index=index, fetched_ids=[], differential=differential),
        llm=llm,
    )
    assert out["confidence_basis"]["support"] == 0.6 and out["confidence"] == 0.6, "0.9 x (1/2 + 1/2 x 0.6), bounded"


def test_an_unknown_query_parser_is_a_clear_error(tmp_path):
    from amg.graphs.context import Context

    with pytest.raises(ValueError, match="AMG_QUERY_PARSER='spacy'"):
        Context(data_dir=str(tmp_path), query_parser="spacy")


def test_the_best_fetched_evidence_is_read_at_length_the_rest_skimmed():
    section = "Metformin is first-line. " * 10 + "The most common adverse effects of metformin are gastrointestinal."
    index = [
        {"n": 1, "id": "textbook:endo", "kind": "textbook", "title": "endo", "snippet": section},
        {"n": 2, "id": "textbook:cardio", "kind": "textbook", "title": "cardio", "snippet": "Aspirin. " * 40},
        {"n": 3, "id": "pmid:1", "kind": "pubmed", "title": "on a path", "snippet": "Old. " * 60},
    ]
    shown = evidence_block(with_lead_text(index, {"textbook:endo": section, "textbook:cardio": "Aspirin. " * 40}))
    assert "adverse effects of metformin are gastrointestinal" in shown and len(section) <= LEAD_CHARS
    cardio = next(line for line in shown.splitlines() if line.startswith("[2]"))
    assert len(cardio) < 250 and cardio.endswith("..."), "only the best-ranked one is read at length"


def test_the_model_reads_vocabulary_titles_without_their_identifiers():
    index = [
        {"n": 1, "id": "vocab:mesh:D009399", "kind": "vocabulary", "title": "MeSH D009399 Nephrons (A05.810.453.736)"},
        {"n": 2, "id": "vocab:drugs:metformin", "kind": "vocabulary", "title": "metformin (DB00331, CHEMBL1431)"},
        {"n": 3, "id": "vocab:hpo:HP:0001252", "kind": "vocabulary", "title": "HP:0001252 Hypotonia"},
        {"n": 4, "id": "vocab:mondo:x", "kind": "vocabulary", "title": "21-hydroxylase deficiency"},
        {"n": 5, "id": "pmid:123", "kind": "pubmed", "title": "Trial NCT01234567 of metformin", "year": 2020},
    ]
    lines = [line for line in evidence_block(index).splitlines() if line.startswith("[")]
    assert lines == [
        "[1] (vocabulary) MeSH Nephrons",
        "[2] (vocabulary) metformin",
        "[3] (vocabulary) Hypotonia",
        "[4] (vocabulary) 21-hydroxylase deficiency",
        "[5] (pubmed, 2020) Trial NCT01234567 of metformin",
    ]
