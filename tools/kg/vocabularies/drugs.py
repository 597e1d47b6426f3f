"""Drug names (drug-named-entity-recognition): canonical drugs, their synonyms, MeSH and DrugBank ids."""

from __future__ import annotations

from importlib.metadata import version

from tools.batching import chunked
from tools.kg.records import EntityRecord, EvidenceRecord
from tools.kg.schema import MAX_NAME_CHARS
from tools.kg.vocabularies import SeedChunk

ORIGIN = "vocabulary:drugs"
RELEASE = f"drug-named-entity-recognition {version('drug-named-entity-recognition')}"


def _dictionary() -> dict[str, dict]:
    from drug_named_entity_recognition import drugs_finder

    return drugs_finder.drug_canonical_to_data


def chunks(size: int = 2000):
    drugs = _dictionary()
    for part in chunked(sorted(drugs), size):
        chunk = SeedChunk()
        for canonical in part:
            data = drugs[canonical]
            name = str(data.get("name") or canonical).strip()
            if not name or len(name) > MAX_NAME_CHARS:
                continue
            synonyms = data.get("synonyms") or []
            if isinstance(synonyms, str):  # some entries keep the list as its repr
                synonyms = [s.strip(" '\"") for s in synonyms.strip("[]").split("',")]
            ids = [f"{label} {data[field]}" for label, field in (("MeSH", "mesh_id"), ("DrugBank", "drugbank_id"))
                   if data.get(field)]  # fmt: skip
            aliases = [s for s in synonyms if isinstance(s, str) and 0 < len(s.strip()) <= MAX_NAME_CHARS]
            evidence_id = f"vocab:drugs:{data.get('drugbank_id') or data.get('mesh_id') or canonical}"
            chunk.entities.append(EntityRecord(
                name=name, type="drug", aliases=aliases + [i.split(" ", 1)[1] for i in ids], sources=[ORIGIN],
            ))  # fmt: skip
            chunk.evidence.append(EvidenceRecord(
                id=evidence_id, kind="vocabulary", title=f"{name} ({', '.join(ids) or 'no ids'})",
                url=data.get("wikipedia_url") or None, release=RELEASE,
            ))  # fmt: skip
            chunk.supports.append((name, evidence_id))
        yield chunk
