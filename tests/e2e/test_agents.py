"""Each agent alone: fake chat model, real graph server, recorded evidence."""

from __future__ import annotations

from pathlib import Path

import pytest

from amg.agents.answer_synthesizer.synthesizer import (
    synthesize,
)
from amg.agents.diagnostician import case_findings
from amg.agents.gap_detector import detect_gaps
from amg.agents.query_parser import parse_query
from amg.agents.reasoner import (
    number_evidence,
    reason,
)
from amg.testing.fakes import PMID_EV, chat
from amg.tools.kg.linking import EntityLinker
from amg.tools.kg.pipeline_types import Asked, Found, GraphPath, Step
from amg.tools.kg.records import EntityRecord, EvidenceRecord, RelationRecord
from amg.tools.vectors.embeddings import model_path


@pytest.fixture
def linker(store, tmp_path):
    return EntityLinker(store, tmp_path / "vectors", model_path=model_path("minilm", Path("/nonexistent")))


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
    everything = EntityLinker(store, tmp_path / "all", model_path=model_path("minilm", Path("/nonexistent")))
    assert everything.sync(include_vocabulary=True) == 3


def test_parser_merges_vocabulary_and_llm_and_links(store, linker):
    store.upsert(
        entities=[
            EntityRecord("Type 2 diabetes mellitus", "disease", aliases=["T2DM"]),
            EntityRecord("Metformin", "drug", aliases=["Glucophage"]),
        ]
    )
    llm = chat(text={"content": "1. glucophage | drug\n2. lactic acidosis | symptom"})
    out = parse_query("Does Glucophage cause lactic acidosis in T2DM?", {}, llm=llm, linker=linker, max_entities=8)
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
    out = parse_query(
        "Does Glucophage cause lactic acidosis in T2DM?",
        {},
        llm=llm,
        linker=linker,
        max_entities=8,
        parser="vocabulary",
    )
    assert [e["name"] for e in out["entities"]] == ["Metformin", "Type 2 diabetes mellitus"] and llm.calls == []


def test_auto_parser_asks_the_model_only_when_the_vocabularies_find_nothing(store, linker):
    store.upsert(entities=[EntityRecord("Metformin", "drug", aliases=["Glucophage"])])
    llm = chat(text={"content": "lactic acidosis | symptom"})
    found = parse_query(
        "Does Glucophage cause lactic acidosis?", {}, llm=llm, linker=linker, max_entities=8, parser="auto"
    )
    assert [e["name"] for e in found["entities"]] == ["Metformin"] and llm.calls == []
    missed = parse_query("Which acid builds up in muscles?", {}, llm=llm, linker=linker, max_entities=8, parser="auto")
    assert [e["name"] for e in missed["entities"]] == ["lactic acidosis"] and len(llm.calls) == 1


def test_parser_reads_phenotypes_stated_in_other_words(store, linker):
    store.upsert(entities=[EntityRecord("Ectopia lentis", "phenotype"), EntityRecord("Fever", "phenotype")])
    out = parse_query(
        "Dislocated lenses of both eyes, no fever and a cough.",
        {},
        llm=None,
        linker=linker,
        max_entities=8,
        parser="vocabulary",
    )
    assert [(e["name"], e["how"]) for e in out["entities"]] == [("Ectopia lentis", "phenotype")], (
        "a negated finding is no entity, and one the graph does not hold (cough) is not linked"
    )


def test_parser_survives_malformed_llm_output(store, linker):
    store.upsert(entities=[EntityRecord("Asthma", "disease")])
    llm = chat(text={"content": 'I am sorry, I cannot list entities for this question.\n{"entities": ['})
    out = parse_query("Is asthma worse at night?", {}, llm=llm, linker=linker, max_entities=8)
    assert [e["name"] for e in out["entities"]] == ["Asthma"]
    assert out["llm_calls"] == 1
    assert "vocabularies only" in out["degradations"][0]


def test_gap_detector(store):
    store.upsert(
        evidence=[EvidenceRecord(id="pmid:1", kind="pubmed")],
        relations=[
            RelationRecord("Known", f"N{i}", type="associated_with", confidence=0.9, evidence_ids=["pmid:1"])
            for i in range(3)
        ],
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
    per_entity = reason(Asked("q?", {}, entities=entities, dialogue=[]), Found(), llm=llm, per_entity=True)
    assert per_entity["llm_calls"] == 2 and set(per_entity["reasoning"]) == {"A", "B"}
    assert [t["role"] for t in per_entity["dialogue"]] == ["user", "assistant"], "one turn carries both entities"
    joint = reason(Asked("q?", {}, entities=entities, dialogue=[]), Found(), llm=llm, per_entity=False)
    assert joint["llm_calls"] == 1 and set(joint["reasoning"]) == {"all"}, "one call reasons over both entities"
    assert "Nothing relevant in the knowledge graph on: A, B." in llm.calls[-1]["prompt"]
    assert "<question>\nq?" in llm.calls[-1]["prompt"], "without a conversation the reasoner opens one"


def test_agents_continue_one_conversation(store, linker):
    """Each call resends the previous one and its reply: the server can reuse what it has read."""
    store.upsert(entities=[EntityRecord("Metformin", "drug")])
    llm = chat(text={"content": "metformin | drug"})
    parsed = parse_query(
        "First-line drug for T2DM?", {"A": "Insulin", "B": "Metformin"}, llm=llm, linker=linker, max_entities=8
    )
    reasoned = reason(
        Asked(
            "First-line drug for T2DM?",
            {"A": "Insulin", "B": "Metformin"},
            entities=parsed["entities"],
            dialogue=parsed["dialogue"],
        ),
        Found(),
        llm=llm,
        per_entity=False,
    )
    answered = synthesize(
        Asked(
            "First-line drug for T2DM?",
            {"A": "Insulin", "B": "Metformin"},
            entities=parsed["entities"],
            dialogue=reasoned["dialogue"],
        ),
        Found(),
        llm=llm,
    )
    assert answered["option"] == "B", "a reply naming exactly one option's text answers it"
    prompts = [c["prompt"] for c in llm.calls]
    assert len(prompts) == 3 and len(answered["dialogue"]) == 6
    for before, after in zip(prompts, prompts[1:]):
        assert after.startswith(before + "\nmetformin | drug\n")
    assert prompts[0].count("<question>\n") == 1 and prompts[-1].count("<question>\n") == 1, "the question once"
    stem_only = parse_query(
        "First-line drug for T2DM?",
        {"A": "Insulin", "B": "Metformin"},
        llm=llm,
        linker=linker,
        max_entities=8,
        use_options=False,
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
    index = number_evidence(nodes, [], store=store)
    assert [(e["n"], e["id"]) for e in index] == [(1, "pmid:31000001")]
    llm = chat(text={"content": "Option: b\nConfidence: 0.8\nCitations: 1, 7"})
    out = synthesize(
        Asked("First-line drug for T2DM?", {"A": "Insulin", "B": "Metformin"}, entities=[{"key": "t2dm"}], dialogue=[]),
        Found(nodes, [], evidence_index=index),
        llm=llm,
    )
    assert out["option"] == "B" and out["answer"] == "B. Metformin"
    assert [c["pmid"] for c in out["citations"]] == ["31000001"], "citation 7 does not exist and is dropped"
    assert out["confidence"] == round(0.8 * (0.5 + 0.5 * 0.9), 3)
    assert out["dialogue"][-1]["content"].startswith("Option: b"), "the answer turn joins the conversation"


def test_glossary_lists_curated_definitions_of_the_terms_a_reader_meets(store):
    store.upsert(
        entities=[
            EntityRecord(
                "Diarrhea",
                "phenotype",
                description="Abnormally increased frequency of loose stools.",
                description_confidence=1.0,
                aliases=["HP:0002014"],
                sources=["vocabulary:hpo"],
            ),
            EntityRecord("Metformin", "drug", description="A model's guess at metformin.", description_confidence=0.5),
            EntityRecord(
                "Nausea",
                "phenotype",
                description="A sensation of unease with an urge to vomit.",
                description_confidence=1.0,
                aliases=["HP:0002018"],
                sources=["vocabulary:hpo"],
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
    both = glossary(
        store, [{"name": "metformin"}], shown=shown, links=[diarrhea], read="Metformin causes nausea and diarrhea."
    )
    assert [(t["term"], t["source"], t["ids"]) for t in both] == [
        ("Nausea", "HPO", ["HP:0002018"]),
        ("Diarrhea", "HPO", ["HP:0002014"]),
    ], "model-written definitions are not listed"
    one = glossary(
        store, [{"name": "metformin"}], shown=shown, links=[diarrhea], read="Metformin most often causes nausea."
    )
    assert [t["term"] for t in one] == ["Nausea"], "a link's end the answer never names is not defined"
    named = glossary(store, [{"name": "metformin"}, {"name": "Diarrhea"}], shown=[], links=[], read="")
    assert [t["term"] for t in named] == ["Diarrhea"], "an entity the answer names is defined, path or not"


def test_a_case_read_only_loosely_is_read_by_the_model_and_a_finding_it_names_otherwise_is_dropped(store, linker):
    """The recogniser reads "fingers are unusually long" and "eyes look blue" (Blue irides) each with a word skipped
    inside: no finding is read surely, so the model reads the case; its blue sclerae names "blue" otherwise, and Blue
    irides leaves the case, for the differential too; the long fingers, which its arachnodactyly shares no word
    with, stay; its jaundice (the prompt's example copied) comes near nothing the case says."""
    names = ["Arachnodactyly", "Blue sclerae", "Blue irides", "Long fingers", "Slender finger"]
    store.upsert(entities=[EntityRecord(n, "phenotype") for n in [*names, "Jaundice"]])
    llm = chat(text={"content": "Arachnodactyly\nBlue sclerae\nJaundice"})
    question = "My son's fingers are unusually long and thin and the whites of his eyes look blue. Why?"
    out = parse_query(question, {}, llm=llm, linker=linker, max_entities=8, parser="auto", lay=True)
    read = {(e["name"], e["how"]) for e in out["entities"]}
    assert read == {
        ("Long fingers", "phenotype"),
        ("Slender finger", "phenotype"),
        ("Arachnodactyly", "lay"),
        ("Blue sclerae", "lay"),
    }
    assert out["llm_calls"] == 1, "jaundice, which the case says nothing like, is not read into it"
    present, _ = case_findings(out["entities"], question, {})
    assert "blue sclerae" in present and "blue iride" not in present, "the text is not read back into Blue irides"
    unread = parse_query(
        question, {}, llm=chat(text={"content": "Long fingers"}), linker=linker, max_entities=8, parser="auto", lay=True
    )
    assert ("Blue irides", "phenotype") in {(e["name"], e["how"]) for e in unread["entities"]}, (
        "a loose finding whose words the model names as no other finding stays"
    )


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


def test_a_case_told_in_everyday_words_is_read_by_the_model_into_the_phenotypes_it_names(store, linker):
    """The recogniser reads no finding in "her fingers are unusually long and thin": the model's clinical terms are
    read instead, and only those the lexicon knows, the graph holds and the question does not negate are kept."""
    store.upsert(
        entities=[
            EntityRecord("Arachnodactyly", "phenotype"),
            EntityRecord("Blue sclerae", "phenotype"),
            EntityRecord("Fever", "phenotype"),
        ]
    )
    llm = chat(text={"content": "Arachnodactyly\nBlue sclerae\nFever\nWidespread unhappiness"})
    question = "My daughter's fingers are unusually long and thin, the whites of her eyes look blue; no fever. Why?"
    out = parse_query(question, {}, llm=llm, linker=linker, max_entities=8, parser="auto", lay=True)
    assert [(e["name"], e["how"]) for e in out["entities"]] == [("Arachnodactyly", "lay"), ("Blue sclerae", "lay")]
    assert out["llm_calls"] == 1, "the lay reading found entities: the auto parser asks nothing more"
    clinical = parse_query(
        "A boy has arachnodactyly and blue sclerae. What is the diagnosis?",
        {},
        llm=llm,
        linker=linker,
        max_entities=8,
        parser="auto",
        lay=True,
    )
    assert clinical["llm_calls"] == 0, "findings the recogniser reads need no lay reading"
    plain = parse_query(
        "What does arachnodactyly mean?", {}, llm=llm, linker=linker, max_entities=8, parser="auto", lay=True
    )
    assert plain["llm_calls"] == 0, "no patient described"
    exam = parse_query(
        question, {"A": "Marfan syndrome", "B": "Asthma"}, llm=llm, linker=linker, max_entities=8, parser="auto"
    )
    assert "lay" not in {e["how"] for e in exam["entities"]}, "only an open question is read this way"
