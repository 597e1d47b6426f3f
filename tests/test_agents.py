"""Each agent alone: fake chat model, real graph server, recorded evidence."""

from __future__ import annotations

from pathlib import Path

import pytest

from amg.agents.answer_synthesizer.synthesizer import (
    NO_KNOWLEDGE,
    bounded_by_differential,
    pick_option,
    read_reply,
    synthesize,
)
from amg.agents.gap_detector import detect_gaps
from amg.agents.query_parser import parse_query, read_mentions
from amg.agents.reasoner import (
    LEAD_CHARS,
    RATIONALE_CHARS,
    conclusion,
    differential_context,
    evidence_block,
    number_evidence,
    reason,
    with_lead_text,
)
from amg.testing.fakes import PMID_EV, FakeChat, chat
from amg.tools.kg.linking import EntityLinker
from amg.tools.kg.pipeline_types import GraphPath, Step
from amg.tools.kg.records import EntityRecord, EvidenceRecord, RelationRecord
from amg.tools.vectors.embeddings import model_path


@pytest.fixture
def linker(store, tmp_path):
    return EntityLinker(store, tmp_path / "vectors", model_path("minilm", Path("/nonexistent")))


def test_name_index_embeds_learned_entities_and_vocabulary_only_on_request(store, linker, tmp_path):
    store.upsert(
        entities=[
            EntityRecord("Hyperglycemia", "phenotype", sources=["vocabulary:hpo"]),
            EntityRecord("Sodium-glucose cotransporter 2 inhibitor", "drug", sources=["pubmed"]),
            EntityRecord("Gliflozin class", "drug"),
        ]
    )
    assert linker.sync() == 2 and linker.sync() == 0
    hit = linker.link("SGLT2 inhibitor sodium glucose cotransporter")
    assert hit and hit[0].key == "sodium glucose cotransporter 2 inhibitor" and hit[0].how == "embedding"
    everything = EntityLinker(store, tmp_path / "all", model_path("minilm", Path("/nonexistent")))
    assert everything.sync(include_vocabulary=True) == 3


def test_parser_merges_vocabulary_and_llm_and_links(store, linker):
    store.upsert(
        entities=[
            EntityRecord("Type 2 diabetes mellitus", "disease", aliases=["T2DM"]),
            EntityRecord("Metformin", "drug", aliases=["Glucophage"]),
        ]
    )
    llm = chat(text={"content": "1. glucophage | drug\n2. lactic acidosis | symptom"})
    out = parse_query("Does Glucophage cause lactic acidosis in T2DM?", {}, llm, linker, max_entities=8)
    found = [(e["name"], e["type"], e["linked"], e["how"]) for e in out["entities"]]
    assert found == [
        ("Metformin", "drug", True, "alias"),
        ("lactic acidosis", "phenotype", False, "llm"),
        ("Type 2 diabetes mellitus", "disease", True, "vocabulary"),
    ]
    assert out["llm_calls"] == 1 and out["tokens"] == 15


def test_vocabulary_parser_asks_no_model(store, linker):
    store.upsert(
        entities=[
            EntityRecord("Type 2 diabetes mellitus", "disease", aliases=["T2DM"]),
            EntityRecord("Metformin", "drug", aliases=["Glucophage"]),
        ]
    )
    llm = chat(text={"content": "lactic acidosis | symptom"})
    out = parse_query("Does Glucophage cause lactic acidosis in T2DM?", {}, llm, linker, 8, parser="vocabulary")
    assert [e["name"] for e in out["entities"]] == ["Metformin", "Type 2 diabetes mellitus"] and llm.calls == []


def test_auto_parser_asks_the_model_only_when_the_vocabularies_find_nothing(store, linker):
    store.upsert(entities=[EntityRecord("Metformin", "drug", aliases=["Glucophage"])])
    llm = chat(text={"content": "lactic acidosis | symptom"})
    found = parse_query("Does Glucophage cause lactic acidosis?", {}, llm, linker, 8, parser="auto")
    assert [e["name"] for e in found["entities"]] == ["Metformin"] and llm.calls == []
    missed = parse_query("Which acid builds up in muscles?", {}, llm, linker, 8, parser="auto")
    assert [e["name"] for e in missed["entities"]] == ["lactic acidosis"] and len(llm.calls) == 1


def test_parser_reads_phenotypes_stated_in_other_words(store, linker):
    store.upsert(entities=[EntityRecord("Ectopia lentis", "phenotype"), EntityRecord("Fever", "phenotype")])
    out = parse_query("Dislocated lenses of both eyes, no fever and a cough.", {}, None, linker, 8, parser="vocabulary")
    assert [(e["name"], e["how"]) for e in out["entities"]] == [("Ectopia lentis", "phenotype")], (
        "a negated finding is no entity, and one the graph does not hold (cough) is not linked"
    )


def test_parser_survives_malformed_llm_output(store, linker):
    store.upsert(entities=[EntityRecord("Asthma", "disease")])
    llm = chat(text={"content": 'I am sorry, I cannot list entities for this question.\n{"entities": ['})
    out = parse_query("Is asthma worse at night?", {}, llm, linker, max_entities=8)
    assert [e["name"] for e in out["entities"]] == ["Asthma"]
    assert out["llm_calls"] == 1
    assert "vocabularies only" in out["degradations"][0]


def test_entity_lines_are_read_leniently():
    reply = "- Metformin | drug\n* `lactic acidosis` | Phenotype\nT2DM\nHere are the entities:\n"
    assert read_mentions(reply) == [("Metformin", "drug"), ("lactic acidosis", "phenotype"), ("T2DM", "other")]
    echoed = "term | type\n---|---\ndrugs | drug\nEpiglottis | anatomy"
    assert read_mentions(echoed) == [("Epiglottis", "anatomy")], "the format's own words are not entities"


def test_gap_detector(store):
    store.upsert(
        evidence=[EvidenceRecord(id="pmid:1", kind="pubmed")],
        relations=[RelationRecord("Known", f"N{i}", "associated_with", 0.9, ["pmid:1"]) for i in range(3)],
    )
    entities = [
        {"key": "known", "name": "Known", "type": "other"},
        {"key": "new one", "name": "New one", "type": "other"},
    ]
    gaps = detect_gaps(entities, store, tau=0.5, stale_days=30, min_relations=3)["gaps"]
    assert gaps == [{"key": "new one", "name": "New one", "type": "other", "status": "missing"}]
    assert store.get_entity("known")["hits"] == 1


def test_reasoner_per_entity_and_joint(store):
    entities = [{"key": "a", "name": "A", "type": "drug"}, {"key": "b", "name": "B", "type": "disease"}]
    llm = chat(text={"content": "A treats B."})
    per_entity = reason("q?", {}, entities, [], [], llm, per_entity=True, dialogue=[])
    assert per_entity["llm_calls"] == 2 and set(per_entity["reasoning"]) == {"A", "B"}
    assert [t["role"] for t in per_entity["dialogue"]] == ["user", "assistant"], "one turn carries both entities"
    joint = reason("q?", {}, entities, [], [], llm, per_entity=False, dialogue=[])
    assert (
        joint["llm_calls"] == 1 and joint["reasoning"] == {"all": "A treats B."} and joint["rationale"] == "A treats B."
    )
    assert "Nothing relevant in the knowledge graph on: A, B." in llm.calls[-1]["prompt"]
    assert "<question>\nq?" in llm.calls[-1]["prompt"], "without a conversation the reasoner opens one"


def test_agents_continue_one_conversation(store, linker):
    """Each call resends the previous one and its reply: the server can reuse what it has read."""
    store.upsert(entities=[EntityRecord("Metformin", "drug")])
    llm = chat(text={"content": "metformin | drug"})
    parsed = parse_query("First-line drug for T2DM?", {"A": "Insulin", "B": "Metformin"}, llm, linker, max_entities=8)
    reasoned = reason(
        "First-line drug for T2DM?",
        {"A": "Insulin", "B": "Metformin"},
        parsed["entities"],
        [],
        [],
        llm,
        per_entity=False,
        dialogue=parsed["dialogue"],
    )
    answered = synthesize(
        "First-line drug for T2DM?",
        {"A": "Insulin", "B": "Metformin"},
        reasoned["dialogue"],
        [],
        [],
        [],
        parsed["entities"],
        llm,
    )
    assert answered["option"] == "B", "a reply naming exactly one option's text answers it"
    prompts = [c["prompt"] for c in llm.calls]
    assert len(prompts) == 3 and len(answered["dialogue"]) == 6
    for before, after in zip(prompts, prompts[1:]):
        assert after.startswith(before + "\nmetformin | drug\n")
    assert prompts[0].count("<question>\n") == 1 and prompts[-1].count("<question>\n") == 1, "the question once"
    stem_only = parse_query(
        "First-line drug for T2DM?", {"A": "Insulin", "B": "Metformin"}, llm, linker, 8, use_options=False
    )
    assert stem_only["dialogue"] == [] and "Insulin" not in llm.calls[-1]["prompt"]


def test_answer_cites_resolvable_evidence_and_combines_confidence(store):
    store.upsert(evidence=[EvidenceRecord(**{k: v for k, v in PMID_EV.items()})])
    step = Step(
        source="Metformin",
        relation="treats",
        target="T2DM",
        confidence=0.9,
        evidence_ids=["pmid:31000001"],
        forward=True,
        description="",
    )
    nodes = [
        GraphPath(
            key="t2dm",
            name="T2DM",
            type="disease",
            description=None,
            score=0.9,
            depth=1,
            weak=False,
            seed="Metformin",
            seed_key="metformin",
            path="...",
            steps=[step],
            rank=0,
            hidden=False,
        )
    ]
    index = number_evidence(nodes, [], store)
    assert [(e["n"], e["id"]) for e in index] == [(1, "pmid:31000001")]
    llm = chat(text={"content": "Option: b\nConfidence: 0.8\nCitations: 1, 7"})
    out = synthesize(
        "First-line drug for T2DM?", {"A": "Insulin", "B": "Metformin"}, [], index, nodes, [], [{"key": "t2dm"}], llm
    )
    assert out["option"] == "B" and out["answer"] == "B. Metformin"
    assert [c["pmid"] for c in out["citations"]] == ["31000001"], "citation 7 does not exist and is dropped"
    assert out["confidence"] == round(0.8 * (0.5 + 0.5 * 0.9), 3)
    assert out["dialogue"][-1]["content"].startswith("Option: b"), "the answer turn joins the conversation"


def test_answer_without_entities_invents_nothing():
    llm = chat()
    out = synthesize("What is the capital of France?", {}, [], [], [], [], [], llm)
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
    out = synthesize("First-line drug?", options, [], [], [], [], [{"key": "x"}], repaired)
    assert out["option"] == "B" and out["llm_calls"] == 2 and not out.get("degradations")
    assert "did not follow the format" in repaired.calls[1]["prompt"]
    hopeless = chat(text={"content": "Option: Z"})
    out = synthesize("First-line drug?", options, [], [], [], [], [{"key": "x"}], hopeless)
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
    skipped = reason("q?", {}, entities, [], [], llm, per_entity=False, dialogue=[{"role": "user", "content": "q?"}])
    assert skipped["reasoning"] == {"all": ""} and skipped["degradations"] and len(skipped["dialogue"]) == 1
    dialogue = [{"role": "user", "content": "q?"}, {"role": "assistant", "content": "r" * 50_000}]
    out = synthesize("q?", {"A": "x", "B": "y"}, dialogue, [], [], [], [{"key": "x"}], llm)
    assert out["confidence"] == 0.0 and out["degradations"] and out["dialogue"] == dialogue
    assert len(llm.calls) == 2, "a rejected request is not repaired"


def test_glossary_lists_curated_definitions_of_the_terms_on_the_paths(store):
    store.upsert(
        entities=[
            EntityRecord(
                "Diarrhea",
                "phenotype",
                "Abnormally increased frequency of loose stools.",
                1.0,
                ["HP:0002014"],
                ["vocabulary:hpo"],
            ),
            EntityRecord("Metformin", "drug", "A model's guess at metformin.", 0.5),
            EntityRecord(
                "Nausea",
                "phenotype",
                "A sensation of unease with an urge to vomit.",
                1.0,
                ["HP:0002018"],
                ["vocabulary:hpo"],
            ),
        ]
    )
    from amg.agents.answer_synthesizer.glossary import glossary

    nausea = Step(
        source="Metformin",
        relation="has_adverse_effect",
        target="Nausea",
        confidence=0.7,
        evidence_ids=[],
        forward=True,
        description="",
    )
    shown = [
        GraphPath(
            key="nausea",
            name="Nausea",
            type="phenotype",
            description=None,
            score=0.7,
            depth=1,
            weak=False,
            seed="Metformin",
            seed_key="metformin",
            path="",
            steps=[nausea],
            rank=0,
            hidden=False,
        )
    ]
    diarrhea = Step(
        source="Diarrhea",
        relation="adverse_effect_of",
        target="Metformin",
        confidence=0.7,
        evidence_ids=[],
        forward=True,
        description="",
    )
    terms = glossary(store, [{"name": "metformin"}], shown, [diarrhea])
    assert [(t["term"], t["source"], t["ids"]) for t in terms] == [
        ("Nausea", "HPO", ["HP:0002018"]),
        ("Diarrhea", "HPO", ["HP:0002014"]),
    ], "model-written definitions are not listed"


def test_spotting_ignores_lowercase_words_that_match_acronym_aliases(store, linker):
    store.upsert(
        entities=[
            EntityRecord("Hinman syndrome", "disease", aliases=["HAS"]),
            EntityRecord("Fabry disease", "disease"),
            EntityRecord("Hypohidrosis", "phenotype"),
        ]
    )
    found = [c.name for c in linker.spot("The man has hypohidrosis: Fabry disease? HAS ruled out.")]
    assert found == ["Hypohidrosis", "Fabry disease", "Hinman syndrome"], "'has' is a word; 'HAS' an acronym"


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
        "Arachnodactyly and ectopia lentis?",
        {},
        [],
        index,
        [],
        [],
        [{"key": "arachnodactyly"}],
        llm,
        differential=differential,
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
