"""Foundation KG seeding: one real vocabulary (drugs) into the real graph, twice."""

from __future__ import annotations

import pytest

from amg.cli.main import build_parser
from amg.tools.kg.vocabularies.seeding import VOCABULARIES, seed


def test_seed_drugs_is_idempotent_and_resumable(store):
    first = seed(store, "drugs")
    assert first["chunks"] > 5 and first["entities"] > 19_000
    stats = store.stats()
    metformin = store.get_entity("Glucophage")
    assert metformin["name"] == "Metformin" and "DB00331" in metformin["aliases"]
    evidence = store.supports("metformin")
    assert evidence[0]["kind"] == "vocabulary" and "drug-named-entity-recognition" in evidence[0]["release"]
    again = seed(store, "drugs")
    assert again["chunks"] == 0 and again["skipped_chunks"] == first["chunks"]
    forced = seed(store, "drugs", force=True)
    assert forced["relations_written"] == 0 and store.stats() == stats, "a forced re-run changes nothing"


def test_seed_takes_a_vocabulary_by_name():
    """`amg kg seed --vocabulary NAME`: the word "source" is the evidence's, not the seeding's."""
    parser = build_parser()
    assert parser.parse_args(["kg", "seed"]).vocabulary == "all"
    assert [parser.parse_args(["kg", "seed", "--vocabulary", v]).vocabulary for v in VOCABULARIES] == list(VOCABULARIES)
    with pytest.raises(SystemExit):
        parser.parse_args(["kg", "seed", "--source", "drugs"])
    with pytest.raises(ValueError, match="unknown vocabulary"):
        seed(None, "nope")
