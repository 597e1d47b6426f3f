"""A study's finding grounded before it is written: its ends named by the abstract or the question, on the
question's entities, its relation agreeing with the answer read from the paper, its sentence the abstract's own."""

from __future__ import annotations

from amg.tools.llm.reader import Reader

READER = Reader(None, "m", reliability=1.0, keep_score=4)  # no model: grounding reads the finding a model gave


def test_a_finding_is_grounded_word_by_word_and_lands_on_the_question_entity():
    from amg.agents.finding_reader.reader import StudyFinding, grounded_finding

    paper = {"id": "pmid:1", "kind": "pubmed", "title": "Students in day surgery"}
    text = "We recommend that students have a place in day surgery quality assurance programmes."
    said = lambda **kw: StudyFinding(
        **{
            "subject": "medical students",
            "relation": "improves",
            "sentence": text,  # noqa: E731
            "object": "quality assurance programme in day surgery",
            "score": 9,
            **kw,
        }
    )
    entities = [{"name": "quality assurance", "key": "quality assurance"}]
    record, why = grounded_finding(said(subject="students"), paper, text=text, reader=READER, entities=entities)
    assert (record.source, record.type, record.target, why) == ("students", "improves", "quality assurance", None)
    assert (
        grounded_finding(said(), paper, text=text, reader=READER)[1]
        == "neither the abstract nor the question names 'medical students'"
    )
    question = "Can medical students contribute to quality assurance in day surgery?"
    assert (
        grounded_finding(said(), paper, text=text, reader=READER, entities=entities, question=question)[0].source
        == "medical students"
    )
    assert (
        grounded_finding(
            said(subject="students", sentence="Students help.", object="audits"),
            paper,
            text=text,
            reader=READER,
            question="Do students help audits?",
        )[1]
        == "its sentence is not in the abstract"
    )
    loose = grounded_finding(said(subject="students", sentence="Students help."), paper, text=text, reader=READER)[0]
    assert loose.description == text, "a sentence the abstract lacks: the abstract's one naming both ends"
    assert (
        grounded_finding(said(subject="students", relation="treats"), paper, text=text, reader=READER)[1]
        == "'treats' is not a study finding"
    )
    assert (
        grounded_finding(said(subject="students", score=3), paper, text=text, reader=READER)[1] == "scored 3, under 4"
    )


def test_a_finding_copied_loosely_is_stored_in_the_abstracts_own_words():
    from amg.agents.finding_reader.reader import StudyFinding, grounded_finding

    paper = {"id": "pmid:2", "kind": "pubmed", "title": "Peri-sinusoidal cells after laparoscopy"}
    text = (
        "CONCLUSIONS: Laparoscopic cholecystectomy activates peri-sinusoidal cells in the liver of patients. "
        "BACKGROUND: Hepatic stellate cells store vitamin A."
    )
    entities = [{"name": "peri-sinusoidal cell activity", "key": "peri sinusoidal cell activity"}]
    finding = StudyFinding(
        subject="laparoscopic cholecystectomy",
        relation="worsens",
        score=8,
        object="perisinusoidal cell activity in the liver of patients",
        sentence="Laparoscopic cholecystectomy activated peri-sinusoidal cells in the liver of patients.",
    )
    question = "Does it influence cell activity?"
    record, why = grounded_finding(finding, paper, text=text, reader=READER, entities=entities, question=question)
    assert why is None and record.target == "peri-sinusoidal cell activity", "hyphen or not, one word; then snapped"
    assert (
        record.description == "Laparoscopic cholecystectomy activates peri-sinusoidal cells in the liver of patients."
    )
    unlike = finding.model_copy(update={"sentence": "Laparoscopy harms the liver of most patients."})
    assert (
        grounded_finding(unlike, paper, text=text, reader=READER, entities=entities, question=question)[0].description
        == record.description
    ), "a sentence the abstract lacks: the abstract's one naming both ends"
    elsewhere = unlike.model_copy(update={"subject": "vitamin A"})
    assert (
        grounded_finding(elsewhere, paper, text=text, reader=READER, entities=entities, question=question)[1]
        == "its sentence is not in the abstract"
    ), "no sentence names both ends"


def test_a_finding_must_agree_with_the_answer_read_from_its_paper():
    from amg.agents.finding_reader.reader import StudyFinding, finding_schema, grounded_finding

    paper = {"id": "pmid:3", "kind": "pubmed", "title": "Loss of consciousness after concussion"}
    text = "CONCLUSIONS: The results cast doubt on loss of consciousness as a predictor of test performance."
    finding = StudyFinding(
        subject="loss of consciousness", relation="predicts", object="test performance", sentence=text, score=8
    )
    assert (
        grounded_finding(finding, paper, text=text, reader=READER, verdict="no")[1]
        == "'predicts' disagrees with the answer read from the paper (no)"
    )
    assert grounded_finding(finding, paper, text=text, reader=READER, verdict="maybe")[0].type == "predicts"
    null = finding.model_copy(update={"relation": "unaffected_by"})
    assert (
        grounded_finding(null, paper, text=text, reader=READER, verdict="yes")[1]
        == "'no_effect_on' disagrees with the answer read from the paper (yes)"
    )
    offered = finding_schema("no").model_json_schema()["properties"]["relation"]["enum"]
    assert "no_effect_on" in offered and "unaffected_by" in offered and "predicts" not in offered
    assert "improves" in finding_schema("").model_json_schema()["properties"]["relation"]["enum"]


def test_a_studys_comparison_arm_is_not_learned_as_what_it_tested():
    from amg.agents.finding_reader.reader import StudyFinding, grounded_finding

    paper = {"id": "pmid:5", "kind": "pubmed", "title": "Gabapentin for neuropathic pain"}
    text = "CONCLUSIONS: Pain scores fell more with gabapentin than with placebo in patients with neuropathy."
    said = lambda subject, relation="improves": StudyFinding(  # noqa: E731
        subject=subject, relation=relation, object="pain scores", sentence=text, score=8
    )
    entities = [{"name": "gabapentin", "key": "gabapentin"}]
    for arm in ("placebo", "gabapentin placebo", "the control group"):
        record, why = grounded_finding(said(arm), paper, text=text, reader=READER, entities=entities, verdict="yes")
        assert record is None and why == f"{arm!r} is the comparison arm, not what was tested", arm
    record, why = grounded_finding(
        said("gabapentin versus placebo"), paper, text=text, reader=READER, entities=entities, verdict="yes"
    )
    assert (record.source, record.type, why) == ("gabapentin", "improves", None)
    # named backwards ("pain scores improved_by placebo"), the subject is still the arm
    flipped = StudyFinding(subject="pain scores", relation="improved_by", object="placebo", sentence=text, score=8)
    assert (
        "comparison arm"
        in grounded_finding(flipped, paper, text=text, reader=READER, entities=entities, verdict="yes")[1]
    )


def test_an_abbreviated_end_is_written_in_full_and_lands_on_the_question_entity():
    from amg.agents.finding_reader.reader import StudyFinding, grounded_finding

    paper = {"id": "pmid:4", "kind": "pubmed", "title": "Small for gestational age (SGA) infants"}
    text = (
        "CONCLUSIONS: Being SGA was not a significant risk factor for ROP in this cohort. "
        "OBJECTIVE: To study retinopathy of prematurity (ROP) in very preterm infants."
    )
    entities = [{"name": "Small for gestational age"}, {"name": "Retinopathy of prematurity"}]
    finding = StudyFinding(
        subject="SGA",
        relation="no_effect_on",
        object="ROP",
        score=9,
        sentence="Being SGA was not a significant risk factor for ROP in this cohort.",
    )
    record, why = grounded_finding(finding, paper, text=text, reader=READER, entities=entities, verdict="no")
    assert why is None and (record.source, record.target) == ("Small for gestational age", "Retinopathy of prematurity")
    both = finding.model_copy(update={"subject": "SGA infants", "object": "SGA"})
    record, why = grounded_finding(both, paper, text=text, reader=READER, entities=entities, verdict="no")
    assert (record.source, record.target) == ("Small for gestational age infants", "Small for gestational age"), (
        "two ends holding one question entity: the longer keeps its own words"
    )


def test_a_finding_copied_with_a_second_sentence_keeps_the_first():
    from amg.agents.finding_reader.reader import sentence_in

    text = (
        "CONCLUSIONS: Tranexamic acid significantly reduces hyperfibrinolysis. Combined use decreases blood loss. "
        "METHODS: One hundred patients were randomised."
    )
    copied = "CONCLUSIONS: Tranexamic acid significantly reduces hyperfibrinolysis. Combined use decreases blood loss."
    assert sentence_in(copied, text) == "Tranexamic acid significantly reduces hyperfibrinolysis."
    assert sentence_in("Aspirin cures it. Nothing else.", text) is None


def test_a_long_or_variant_end_is_cut_to_its_head_and_kept():
    from amg.agents.finding_reader.reader import StudyFinding, grounded_finding

    paper = {"id": "pmid:5", "kind": "pubmed", "title": "p53 in rectal cancer"}
    text = (
        "CONCLUSIONS: p53 alterations do not predict tumour response to pre-operative chemo-radiotherapy in "
        "locally advanced rectal cancer. METHODS: Patients with type 2 diabetes were excluded."
    )
    long_end = "tumour response to pre-operative chemo-radiotherapy in locally advanced rectal cancer"
    finding = StudyFinding(
        subject="p53 alterations",
        relation="not_associated_with",
        object=long_end,
        score=8,
        sentence=text.split(" METHODS")[0],
    )
    record, why = grounded_finding(finding, paper, text=text, reader=READER, verdict="no")
    assert why is None and record.target == "tumour response to pre-operative chemo-radiotherapy"
    variant = finding.model_copy(update={"object": "type 2 diabetes mellitus"})
    assert (
        grounded_finding(variant, paper, text=text, reader=READER, verdict="no")[0].target == "type 2 diabetes mellitus"
    )
    two_words = finding.model_copy(update={"object": "diabetes mellitus"})
    assert (
        grounded_finding(two_words, paper, text=text, reader=READER, verdict="no")[1]
        == "neither the abstract nor the question names 'diabetes mellitus'"
    ), "one word of two is not a variant"
