"""ICD-10-CM (simple-icd-10-cm): chapters, blocks and codes with their is_a hierarchy.

Codes at the 7th-character level (encounter, laterality and sequela variants such as
S72.001A, "initial encounter") are billing detail rather than medical knowledge and
are left out: about half of all codes.
"""

from __future__ import annotations

from collections import Counter
from importlib.metadata import version

import simple_icd_10_cm as icd

from tools.batching import chunked
from tools.kg.records import EntityRecord, EvidenceRecord
from tools.kg.schema import normalize_key
from tools.kg.vocabularies import SeedChunk

ORIGIN = "vocabulary:icd10"
RELEASE = f"ICD-10-CM April 2026 (simple-icd-10-cm {version('simple-icd-10-cm')})"


def _names(codes: list[str]) -> dict[str, str]:
    """A unique display name per code: the description, plus the code where descriptions repeat."""
    texts = {code: " ".join(icd.get_description(code).split())[:250] for code in codes}
    counts = Counter(normalize_key(text) for text in texts.values())
    return {code: text if counts[normalize_key(text)] == 1 else f"{text} ({code})" for code, text in texts.items()}


def chunks(size: int = 2000):
    codes = [c for c in icd.get_all_codes(with_dots=True) if icd.is_chapter_or_block(c) or len(c.replace(".", "")) < 7]
    names = _names(codes)
    for part in chunked(codes, size):
        chunk = SeedChunk()
        for code in part:
            kind = "other" if icd.is_chapter_or_block(code) else "disease"
            evidence_id = f"vocab:icd10:{code}"
            chunk.entities.append(EntityRecord(name=names[code], type=kind, aliases=[f"ICD-10-CM {code}"],
                                               sources=[ORIGIN]))  # fmt: skip
            chunk.evidence.append(EvidenceRecord(
                id=evidence_id, kind="vocabulary", title=f"ICD-10-CM {code}: {icd.get_description(code)}",
                snippet="; ".join(icd.get_inclusion_term(code))[:500],
                release=RELEASE, year=2026,
            ))  # fmt: skip
            chunk.supports.append((names[code], evidence_id))
            parent = icd.get_parent(code)
            if parent:
                chunk.relate(names[code], names[parent], "is_a", evidence_id, "ICD-10-CM hierarchy", ORIGIN)
        yield chunk
