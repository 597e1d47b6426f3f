"""Drug names (drug-named-entity-recognition): canonical drugs, their synonyms, MeSH and DrugBank ids."""

from __future__ import annotations

from importlib.metadata import version

from amg.tools.batching import chunked
from amg.tools.kg.records import EntityRecord, EvidenceRecord
from amg.tools.kg.vocabularies import SeedChunk
from amg.tools.kg.vocabularies.drug_index import entries, synonyms

ORIGIN = "vocabulary:drugs"
RELEASE = f"drug-named-entity-recognition {version('drug-named-entity-recognition')}"


def chunks(size: int = 2000):
    for part in chunked(list(entries()), size):
        chunk = SeedChunk()
        for canonical, name, data in part:
            ids = [
                f"{label} {value}"
                for label, value in (("MeSH", data.get("mesh_id")), ("DrugBank", data.get("drugbank_id")))
                if value
            ]
            evidence_id = f"vocab:drugs:{data.get('drugbank_id') or data.get('mesh_id') or canonical}"
            chunk.entities.append(
                EntityRecord(
                    name=name,
                    type="drug",
                    aliases=synonyms(data) + [i.split(" ", 1)[1] for i in ids],
                    sources=[ORIGIN],
                )
            )
            chunk.evidence.append(
                EvidenceRecord(
                    id=evidence_id,
                    kind="vocabulary",
                    title=f"{name} ({', '.join(ids) or 'no ids'})",
                    url=data.get("wikipedia_url") or None,
                    release=RELEASE,
                )
            )
            chunk.supports.append((name, evidence_id))
        yield chunk
