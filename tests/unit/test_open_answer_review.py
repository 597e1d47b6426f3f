"""Reading an open answer against the graph: what a question asks for, whether an answer names a fact's end, and
names as a clinician writes them (agents/answer_synthesizer/review.py, tools/question_kinds.py)."""

from __future__ import annotations

from amg.agents.answer_synthesizer.review import answering_nodes, clinical_name, mentions, states
from amg.tools.question_kinds import asked_relations


def test_an_ontology_labels_qualifiers_are_dropped():
    assert clinical_name("Charcot-Marie-Tooth disease (axonal, type 2CC)") == "Charcot-Marie-Tooth disease"
    assert clinical_name("Hypokalemia (phenotype)") == "Hypokalemia"
    assert clinical_name("Type 2 diabetes mellitus, unspecified") == "Type 2 diabetes mellitus"
    assert clinical_name("Anemia NOS") == "Anemia"
    assert clinical_name("(phenotype)") == "(phenotype)", "nothing but a qualifier stays as it is"


def test_what_a_question_asks_for_is_read_from_its_wording():
    assert {"caused_by", "causes"} <= asked_relations("Which organism causes Lyme disease?")
    assert {"caused_by"} <= asked_relations("Deficiency of which vitamin leads to scurvy?")
    assert {"treated_by", "treats"} <= asked_relations("What is the drug of choice for absence seizures?")
    assert {"has_adverse_effect"} <= asked_relations("And its most common side effect?")
    assert {"has_symptom"} <= asked_relations("How does hypothyroidism present?")
    assert asked_relations("Who described the disease first?") == frozenset()


def test_an_answer_names_a_fact_by_its_words_in_any_order_never_missing_a_short_one():
    assert mentions("Thiamine (vitamin B1) deficiency causes it.", "Thiamine deficiency")
    assert mentions("Metformin treats type 2 diabetes.", "Type 2 diabetes mellitus"), "a long word may be missing"
    assert not mentions("It is caused by a vitamin B1 deficiency.", "Vitamin A deficiency"), "never the letter"
    assert not mentions("Vitamin B6 deficiency.", "Vitamin B12 deficiency")
    assert not mentions("A virus.", "Borrelia burgdorferi")
    assert mentions("Borrelia burgdorferi, a spirochete.", "Borrelia burgdorferi (organism)")


def test_a_sentence_states_an_answer_only_with_its_words_beside_the_subject():
    keys = [{"key": "metformin", "name": "Metformin"}]
    answer = "Metformin treats type 2 diabetes mellitus."
    assert states("Metformin is first-line therapy for type 2 diabetes mellitus.", answer, keys)
    assert not states("Lactic acidosis during metformin treatment: a case report.", answer, keys)


def step(source: str, relation: str, target: str, confidence: float) -> dict:
    return {
        "source": source,
        "relation": relation,
        "target": target,
        "confidence": confidence,
        "evidence_ids": ["vocab:x"],
        "forward": True,
        "description": "",
    }


def node(key: str, relation: str, depth: int = 1, seed: str = "lyme disease", score: float = 0.9) -> dict:
    return {
        "key": key,
        "name": key.title(),
        "type": "other",
        "description": None,
        "score": score,
        "depth": depth,
        "weak": False,
        "seed": seed.title(),
        "seed_key": seed,
        "path": "",
        "steps": [step(seed.title(), relation, key.title(), score)] * depth,
        "rank": 0,
        "hidden": True,
    }


def test_only_a_fact_one_step_from_a_question_entity_along_the_asked_relation_bears_on_the_point():
    nodes = [
        node("borrelia burgdorferi", "caused_by"),
        node("bacterial infection", "is_a", score=1.0),  # off the point, however strong
        node("tick bite", "caused_by", depth=2),  # two steps away
        node("erythema migrans", "caused_by", seed="rash"),  # from another entity
    ]
    entities = [{"key": "lyme disease", "name": "Lyme disease", "type": "disease"}]
    chosen = answering_nodes("Which organism causes Lyme disease?", entities, nodes)
    assert [n["key"] for n in chosen] == ["borrelia burgdorferi"], "hidden paths count: they may answer"


def test_a_follow_up_cites_the_passage_sentence_that_states_its_answer_not_the_context_it_restates():
    from amg.agents.answer_synthesizer.review import answering_sentence, review, with_passages
    from amg.tools.kg.pipeline_types import Asked, Found
    from amg.tools.kg.records import EvidenceRecord

    chapter = (
        "Metformin is the first-line drug for most adults with type 2 diabetes mellitus. The most common adverse "
        "effects of metformin are gastrointestinal: diarrhea, nausea and abdominal discomfort."
    )
    passage = EvidenceRecord(id="textbook:endo.md::0", kind="textbook", title="endo.md", snippet=chapter[:40])
    answer = "Metformin is a medication used to treat type 2 diabetes. One of its most common side effects is nausea."
    question = "And its most common side effect?"
    assert answering_sentence(answer, question) == "One of its most common side effects is nausea."
    assert answering_sentence("Thiamine.", "Which vitamin?") == "Thiamine."
    asked = Asked(question=question, entities=[{"key": "metformin", "name": "Metformin"}])
    draft = {
        "answer": answer,
        "dialogue": [],
        "likelihood": 0.7,
        "tokens": {"p_first": 0.6, "p_lowest": 0.3},
        "stated": 0.85,
    }
    found = with_passages(Found(), [passage], {passage.id: chapter})
    assert found.fetched_ids == [passage.id] and found.evidence_index[0]["snippet"] == chapter, "the text read"
    assert with_passages(found, [passage], {}).evidence_index == found.evidence_index, "never twice"
    update = review(asked, found, draft=draft, llm=None, aliases={})
    assert update["answer"] == answer
    assert [c.quote if hasattr(c, "quote") else c["quote"] for c in update["citations"]] == [
        "The most common adverse effects of metformin are gastrointestinal: diarrhea, nausea and abdominal discomfort."
    ]
    assert update["confidence_basis"]["support"] > 0 and "rests_on" not in update["confidence_basis"]
    assert {k: update["confidence_basis"][k] for k in ("p_answer", "p_first", "p_lowest", "p_stated")} == {
        "p_answer": 0.7,
        "p_first": 0.6,
        "p_lowest": 0.3,
        "p_stated": 0.85,
    }, "the draft's token signals and its stated confidence reach the confidence"
    unrelated = EvidenceRecord(id="textbook:cardio.md::0", kind="textbook", title="cardio.md", snippet="")
    text = "Metformin is the first-line drug for most adults with type 2 diabetes mellitus."
    alone = review(asked, with_passages(Found(), [unrelated], {unrelated.id: text}), draft=draft, llm=None, aliases={})
    assert alone["citations"] == [] and alone["confidence_basis"]["rests_on"], "the context restated is not cited"


def test_the_passage_behind_a_fact_on_the_point_is_cited_where_it_states_the_answer_the_fact_does_not_name():
    """Offline, no passage is searched: the chapter a relation "metformin has adverse effect diarrhea" was learned
    from is what the graph holds on the point. The draft's nausea is not diarrhea, and the fact is not strong enough
    to revise it, but a sentence of that chapter states nausea: it is cited. A draft it does not state rests on the
    model's own knowledge."""
    from dataclasses import asdict

    from amg.agents.answer_synthesizer.review import review
    from amg.tools.kg.pipeline_types import Asked, Found
    from amg.tools.kg.records import EvidenceRecord

    chapter = (
        "Metformin is the first-line drug for most adults with type 2 diabetes mellitus. The most common adverse "
        "effects of metformin are gastrointestinal: diarrhea, nausea and abdominal discomfort."
    )
    passage = EvidenceRecord(id="textbook:endo.md::0", kind="textbook", title="endo.md", snippet=chapter)
    diarrhea = node("diarrhea", "has_adverse_effect", seed="metformin", score=0.73)
    diarrhea["steps"] = [{**diarrhea["steps"][0], "evidence_ids": [passage.id]}]
    found = Found(nodes=[diarrhea], evidence_index=[{"n": 1, **asdict(passage)}])
    asked = Asked(
        question="What is the most common side effect of metformin?",
        entities=[{"key": "metformin", "name": "Metformin", "type": "drug"}],
    )
    draft = {"answer": "Nausea is the most common side effect of metformin.", "dialogue": [], "stated": 0.8}
    update = review(asked, found, draft=draft, llm=None, aliases={})
    assert update["answer"] == draft["answer"] and not update["confidence_basis"]["revised"]
    assert [c["quote"] for c in update["citations"]] == [
        "The most common adverse effects of metformin are gastrointestinal: diarrhea, nausea and abdominal discomfort."
    ]
    assert update["confidence_basis"]["support"] > 0 and "rests_on" not in update["confidence_basis"]
    wrong = {**draft, "answer": "Weight gain is the most common side effect of metformin."}
    alone = review(asked, found, draft=wrong, llm=None, aliases={})
    assert alone["citations"] == [] and alone["confidence_basis"]["rests_on"], "a passage that does not state it"


MARFAN = {
    "key": "marfan syndrome",
    "name": "Marfan syndrome",
    "probability": 0.97,
    "present": ["Arachnodactyly", "Ectopia lentis", "Mitral regurgitation"],
    "frequencies": {"Arachnodactyly": 0.9, "Ectopia lentis": 0.6, "Mitral regurgitation": 0.4},
    "subtypes": [],
    "evidence_ids": ["pmid:10797416"],
}
CASE = "A tall young man with long slender fingers, dislocated lenses and mitral regurgitation: what is it?"


def test_a_case_asking_what_the_patient_has_is_answered_from_a_strong_differential():
    """The draft names no disease; HPO's annotations put Marfan syndrome at 0.97: the model is shown it and says so."""
    from amg.agents.answer_synthesizer.review import diagnosis_facts, review
    from amg.testing.fakes import FakeChat
    from amg.tools.kg.pipeline_types import Asked, Found

    shown = []

    def respond(request):
        shown.append(request["prompt"])
        return {"content": "Answer: Marfan syndrome." if "fit Marfan syndrome" in request["prompt"] else "Answer: yes"}

    draft = {"answer": "A patient with severe eye problems.", "dialogue": [], "stated": 0.5}
    update = review(
        Asked(question=CASE), Found(differential=[MARFAN]), draft=draft, llm=FakeChat(responder=respond), aliases={}
    )
    assert update["answer"] == "Marfan syndrome." and update["confidence_basis"]["revised"]
    assert "Arachnodactyly, Ectopia lentis, Mitral regurgitation" in shown[0], "the findings it rests on are shown"
    assert diagnosis_facts("Which drug prevents its complications in this man?", [MARFAN]) == [], "not asked"
    assert diagnosis_facts(CASE, [{**MARFAN, "probability": 0.57}]) == [], "not strong enough to revise"
    assert diagnosis_facts(CASE, [{**MARFAN, "evidence_ids": []}]) == [], "nothing behind it"


def test_a_question_asks_for_a_diagnosis_only_when_it_asks_what_the_patient_has():
    from amg.tools.question_kinds import asks_for_diagnosis

    for asked in ("… and a dilated aortic root: what is it?", "Which of the following is the most likely diagnosis?"):
        assert asks_for_diagnosis(asked)
    for other in ("How is the diagnosis confirmed?", "What test confirms the diagnosis?", "What is it used for?"):
        assert not asks_for_diagnosis(other), other
