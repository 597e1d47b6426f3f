"""WHO Model List of Essential Medicines as packaged by GNU Health (gnuhealth-who-essential-medicines, GPL-3.0+;
the list is WHO's): each medicine is a member_of its therapeutic section, each section part_of its chapter.

Confidence: member_of 0.9 (listing for an indication, not a full pharmacological class), part_of 1.0 (the list's
own structure). "Complementary list" sections are folded into their parent section.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from importlib.metadata import version
from pathlib import Path

from amg.tools.batching import chunked
from amg.tools.kg.records import EntityRecord, EvidenceRecord
from amg.tools.kg.vocabularies import SeedChunk
from amg.tools.kg.vocabularies.drug_index import fold, lookup
from amg.tools.package_files import package_data

ORIGIN = "vocabulary:who-eml"
DIST = "gnuhealth-who-essential-medicines"
ROOTS = {"medicament", "em"}
GENERIC = {"Specific", "Non-specific", "Oral", "Parenteral", "Miscellaneous"}  # section names that need their parent
MEMBER_CONFIDENCE = 0.9


def _release() -> str:
    return f"WHO Model List of Essential Medicines ({DIST} {version(DIST)})"


def _records(path: Path) -> dict[str, dict[str, str]]:
    """Record id -> field name -> text (or the id a field refers to)."""
    root = ET.parse(path).getroot()
    return {
        record.get("id", ""): {
            f.get("name", ""): (f.text or "").strip() or f.get("ref") or "" for f in record.iter("field")
        }
        for record in root.iter("record")
    }


def _sentence(text: str) -> str:
    """ "ANTI-INFECTIVE MEDICINES (NSAIMs)" -> "Anti-infective medicines (NSAIMs)": capitals lowered, acronyms kept."""
    words = [w.lower() if w.isupper() else w for w in text.split()]
    return " ".join(words)[:1].upper() + " ".join(words)[1:]


def _sections(categories: dict[str, dict[str, str]]) -> dict[str, tuple[str, str | None]]:
    """Section id -> (entity name, parent section id); complementary sections map to their parent's name."""
    real = {i: c for i, c in categories.items() if i not in ROOTS and not i.endswith("c")}
    repeated = {n for n, k in Counter(c["name"].lower() for c in real.values()).items() if k > 1}
    found = {}
    for ident, category in real.items():
        number = ident[3:].replace("_", ".")
        label, parent = _sentence(category["name"]), category.get("parent")
        if (
            parent is not None
            and parent not in ROOTS
            and (
                number.count(".") >= 2
                or category["name"] in GENERIC
                or category["name"].startswith("For ")
                or label.lower() in repeated
            )
        ):
            label = f"{_sentence(real[parent]['name'])}: {label[:1].lower()}{label[1:]}"
        found[ident] = (f"{label} (WHO EML {number})", None if parent in ROOTS else parent)
    for ident, category in categories.items():
        if ident.endswith("c") and category.get("parent") in found:
            found[ident] = found[category["parent"]]
    return found


def _drugs(component: str, names: dict[str, str]) -> list[str]:
    """Graph drug names of a listed medicine: "epinephrine (adrenaline)" -> Epinephrine; a fixed-dose combination
    "isoniazid + rifampicin" -> each of its parts; a medicine the dictionary lacks keeps its listed name."""
    bare = re.sub(r"\s*\(.*?\)", "", component)
    parts = bare.split(" + ")
    spellings = [component, bare] + (re.findall(r"\((.*?)\)", component) if len(parts) == 1 else [])
    found = next((names[fold(s)] for s in spellings if fold(s) in names), None)
    if found or len(parts) == 1:
        return [found or component]
    return [n for part in parts for n in _drugs(part, names)]


def chunks(size: int = 1000, data_dir: Path | None = None):
    folder = Path(data_dir) if data_dir else package_data("trytond.modules.health_who_essential_medicines", "data")
    sections = _sections(_records(folder / "medicament_categories.xml"))
    medicines = _records(folder / "WHO_list_of_essential_medicines.xml")
    release, names = _release(), lookup()
    chunk = SeedChunk()
    for ident, (name, parent) in sorted(sections.items()):
        if ident.endswith("c"):
            continue
        evidence_id = f"vocab:who-eml:{ident}"
        chunk.entities.append(EntityRecord(name=name, type="other", sources=[ORIGIN]))
        chunk.evidence.append(EvidenceRecord(id=evidence_id, kind="vocabulary", title=name, release=release))
        chunk.supports.append((name, evidence_id))
        if parent:
            chunk.relate(
                name,
                sections[parent][0],
                type_="part_of",
                evidence_id=evidence_id,
                description="WHO EML structure",
                origin=ORIGIN,
                confidence=1.0,
            )
    yield chunk
    for part in chunked(sorted(medicines.items()), size):
        chunk = SeedChunk()
        for ident, medicine in part:
            component = " ".join(medicine["active_component"].split())
            section, complementary = sections[medicine["category"]][0], medicine["category"].endswith("c")
            evidence_id = f"vocab:who-eml:{ident}"
            chunk.evidence.append(
                EvidenceRecord(
                    id=evidence_id,
                    kind="vocabulary",
                    title=f"{component}: {section}" + (" (complementary list)" if complementary else ""),
                    snippet=" ".join(medicine["notes"].split())[:500],
                    release=release,
                )
            )
            for drug in _drugs(component, names):
                chunk.entities.append(EntityRecord(name=drug, type="drug", aliases=[component], sources=[ORIGIN]))
                chunk.supports.append((drug, evidence_id))
                chunk.relate(
                    drug,
                    section,
                    type_="member_of",
                    evidence_id=evidence_id,
                    description="WHO essential medicine",
                    origin=ORIGIN,
                    confidence=MEMBER_CONFIDENCE,
                )
        yield chunk
