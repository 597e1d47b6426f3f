"""The phenotype-recognition benchmark: its BioC reader, its scores and its emulated spotter, on a hand-written
document in the corpus's format (not taken from the corpus)."""

from __future__ import annotations

import json

import pytest

from amg.tools.phenotypes.lexicon import Lexicon, Term
from benchmarks import phenotype_recognition as bench
from benchmarks.phenotype_recognition import Document, Mention

URL = "http://purl.obolibrary.org/obo/HP_"


def ann(ident: int, offset: int, text: str, term: str | None = None) -> str:
    hpo = f'<infon key="HPOterm">{URL}{term}</infon>' if term else ""
    return (
        f'<annotation id="{ident}"><infon key="type">webanno.custom.Phenotypes</infon>{hpo}'
        f'<location length="{len(text)}" offset="{offset}"/><text>{text}</text></annotation>'
    )


def rel(ident: int, source: int, target: int, term: str | None = None) -> str:
    hpo = f'<infon key="HPOterm">{URL}{term}</infon>' if term else ""
    return (
        f'<relation id="{ident}"><infon key="type">webanno.custom.PhenotypeRelations</infon>{hpo}'
        f'<node refid="{source}" role="source"/><node refid="{target}" role="target"/></relation>'
    )


def sentence(offset: int, text: str, *parts: str) -> str:
    return f"<sentence><offset>{offset}</offset><text>{text}</text>{''.join(parts)}</sentence>"


# "short stature" twice, "broad … thumb" (a relation carries the id), "second -> finger -> curved" (the id on
# the second relation only), and "gloomy" with no id. Locations are relative to the sentence.
BIOC = (
    "<collection><source>hpo-corpus-1</source><key>lwit</key><document><id>lwit</id><passage><offset>0</offset>"
    + sentence(
        0,
        "A boy with short stature and a broad thumb.",
        ann(1, 11, "short stature", "0004322"),
        ann(2, 31, "broad"),
        ann(3, 37, "thumb"),
        rel(4, 2, 3, "0011304"),
    )
    + sentence(
        44,
        "His second finger was curved and the face was gloomy.",
        ann(5, 4, "second"),
        ann(6, 11, "finger"),
        ann(8, 22, "curved"),
        rel(7, 5, 6),
        rel(9, 6, 8, "0004209"),
        ann(10, 46, "gloomy"),
    )
    + sentence(100, "Short stature again.", ann(11, 0, "Short stature", "0004322"))
    + "</passage></document></collection>"
)


def test_the_reader_gives_document_spans_and_ids_and_joins_the_parts_of_a_relation():
    doc = bench.read_bioc(BIOC, "PMID1_1.txt")
    assert doc.sentences[1] == (44, "His second finger was curved and the face was gloomy.")
    assert [(m.id, m.spans) for m in doc.mentions] == [
        ("HP:0004322", ((11, 24),)),
        ("HP:0004322", ((100, 113),)),
        ("HP:0011304", ((31, 36), (37, 42))),
        ("HP:0004209", ((48, 54), (55, 61), (66, 72))),  # "second" joins through the relation without an id
    ]
    assert doc.unlinked == [((90, 96),)]  # "gloomy"
    assert [bench.words(doc, m) for m in doc.mentions[2:]] == ["broad … thumb", "second … finger … curved"]


PARENTS = {"HP:0011304": ["HP:0001172"]}  # a hand-made hierarchy: broad thumb is_a abnormal thumb


def related(a: str, b: str) -> bool:
    return a == b or a in PARENTS.get(b, []) or b in PARENTS.get(a, [])


def predictions() -> list[tuple[Document, list[Mention]]]:
    doc = bench.read_bioc(BIOC)
    guessed = [
        Mention("HP:0004322", ((17, 24),)),  # overlaps the first "short stature": right
        Mention("HP:0001172", ((37, 42),)),  # the parent of the gold id on "thumb": right only when lenient
        Mention("HP:0000316", ((80, 84),)),  # a term the gold lacks
        Mention("HP:0004322", ((44, 47),)),  # a gold id, but no gold span of it there
        Mention("HP:0000273", ((90, 96),)),  # on "gloomy", a phenotype with no id: not counted
    ]
    other = Document("other", [(0, "Tall.")], mentions=[Mention("HP:0000098", ((0, 4),))])  # nothing predicted
    return [(doc, guessed), (other, [])]


def test_scores_are_the_ones_counted_by_hand():
    figures = bench.score(predictions(), related)
    # mentions: 5 gold, 4 predicted (and 1 not counted), 1 right (2 when a parent counts)
    assert (figures["mention_precision"], figures["mention_recall"], figures["mention_f1"]) == (0.25, 0.2, 0.222)
    assert (figures["mention_lenient_precision"], figures["mention_lenient_recall"], figures["mention_lenient_f1"]) == (
        0.5,
        0.4,
        0.444,
    )
    # documents: gold ids {4322, 11304, 4209} and {98}; predicted {4322, 1172, 316} and none; 1 right
    assert (figures["document_micro_precision"], figures["document_micro_recall"], figures["document_micro_f1"]) == (
        0.333,
        0.25,
        0.286,
    )
    # per document: (1/3, 1/3, 1/3) and (0, 0, 0)
    assert (figures["document_macro_precision"], figures["document_macro_recall"], figures["document_macro_f1"]) == (
        0.167,
        0.167,
        0.167,
    )


def test_a_prediction_matches_one_gold_mention_at_most():
    gold = [Mention("HP:0004322", ((0, 13),))]
    assert bench.matches(gold, [Mention("HP:0004322", ((0, 5),)), Mention("HP:0004322", ((6, 13),))]) == 1
    assert bench.matches(gold * 2, [Mention("HP:0004322", ((0, 13),))]) == 1
    assert bench.matches(gold, [Mention("HP:0004322", ((13, 20),))]) == 0  # touching is not overlapping
    assert bench.prf(0, 0, 0) == (1.0, 1.0, 1.0) and bench.prf(0, 0, 2) == (0.0, 0.0, 0.0)


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return Lexicon(
        {
            "HP:0000118": Term(
                "HP:0000118", "Phenotypic abnormality", parents=[], labels=[("Phenotypic abnormality", 1.0)]
            ),
            "HP:0004322": Term(
                "HP:0004322",
                "Short stature",
                parents=["HP:0000118"],
                labels=[("Short stature", 1.0), ("Decreased body height", 1.0)],
            ),
        }
    )


def test_the_emulated_spotter_reads_labels_as_written_and_once(lexicon):
    index = bench.spotter_index(lexicon)
    assert index == {"short stature": "HP:0004322", "decreased body height": "HP:0004322"}
    assert bench.spotter("Stature short; no short stature, short statures.", index) == [("HP:0004322", (18, 31))]
    assert bench.spotter("Her body height was decreased.", index) == []


def test_the_recogniser_counts_only_present_findings(lexicon):
    assert bench.recogniser("No short stature.", lexicon) == []
    assert bench.recogniser("Her stature was short.", lexicon) == [("HP:0004322", (4, 21))]


def test_no_corpus_is_a_one_line_note(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("sys.argv", ["phenotype_recognition", str(tmp_path)])
    bench.main()
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and json.loads(out[0])["skipped"].startswith(f"no corpus at {tmp_path}")
