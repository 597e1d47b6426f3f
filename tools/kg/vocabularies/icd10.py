"""ICD-10-CM (simple-icd-10-cm): chapters, blocks, categories and subcategories with their is_a hierarchy.
Public domain (US CDC/NCHS). Confidence 1.0 (curated hierarchy).

Entities stop at the 4-character subcategory (E11.6): the 5- and 6-character billing subtypes below it (E11.65)
become code aliases of it and are listed in its evidence; 7th-character codes (encounter, laterality and sequela
variants such as S72.001A, "initial encounter") are billing detail and are left out.
"""

from __future__ import annotations

from collections import Counter
from importlib.metadata import version

import simple_icd_10_cm as icd

from amg.tools.batching import chunked
from amg.tools.kg.records import EntityRecord, EvidenceRecord
from amg.tools.kg.schema import normalize_key
from amg.tools.kg.vocabularies import SeedChunk

ORIGIN = "vocabulary:icd10"
VERSION = 2  # 2: billing subtypes as aliases of their 4-character code
RELEASE = f"ICD-10-CM April 2026 (simple-icd-10-cm {version('simple-icd-10-cm')})"


def _depth(code: str) -> int:
    return len(code.replace(".", ""))


def _names(codes: list[str]) -> dict[str, str]:
    """A unique display name per code: the description, plus the code where descriptions repeat."""
    texts = {code: " ".join(icd.get_description(code).split())[:250] for code in codes}
    counts = Counter(normalize_key(text) for text in texts.values())
    return {code: text if counts[normalize_key(text)] == 1 else f"{text} ({code})" for code, text in texts.items()}


def _subtypes(codes: list[str]) -> dict[str, list[str]]:
    """4-character subcategory -> its 5- and 6-character descendants."""
    found: dict[str, list[str]] = {}
    for code in codes:
        if not icd.is_chapter_or_block(code) and 5 <= _depth(code) <= 6:
            ancestor = next(a for a in icd.get_ancestors(code) if _depth(a) == 4 and not icd.is_chapter_or_block(a))
            found.setdefault(ancestor, []).append(code)
    return found


def _snippet(code: str, subtypes: list[str]) -> str:
    included = "; ".join(icd.get_inclusion_term(code))[:500]
    listed = "; ".join(f"{c} {icd.get_description(c)}" for c in subtypes)
    return " ".join(x for x in (included, f"Subtypes: {listed}"[:1000] if listed else "") if x)


def chunks(size: int = 2000):
    everything = icd.get_all_codes(with_dots=True)
    codes = [c for c in everything if icd.is_chapter_or_block(c) or _depth(c) <= 4]
    names, subtypes = _names(codes), _subtypes(everything)
    for part in chunked(codes, size):
        chunk = SeedChunk()
        for code in part:
            kind = "other" if icd.is_chapter_or_block(code) else "disease"
            evidence_id = f"vocab:icd10:{code}"
            aliases = [f"ICD-10-CM {c}" for c in [code, *subtypes.get(code, [])]]
            chunk.entities.append(EntityRecord(name=names[code], type=kind, aliases=aliases, sources=[ORIGIN]))
            chunk.evidence.append(
                EvidenceRecord(
                    id=evidence_id,
                    kind="vocabulary",
                    title=f"ICD-10-CM {code}: {icd.get_description(code)}",
                    snippet=_snippet(code, subtypes.get(code, [])),
                    release=RELEASE,
                    year=2026,
                )
            )
            chunk.supports.append((names[code], evidence_id))
            parent = icd.get_parent(code)
            if parent:
                chunk.relate(
                    names[code],
                    names[parent],
                    type_="is_a",
                    evidence_id=evidence_id,
                    description="ICD-10-CM hierarchy",
                    origin=ORIGIN,
                )
        yield chunk
