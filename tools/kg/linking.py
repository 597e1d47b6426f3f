"""Entity linking: exact key, then alias, then embedding similarity over entity names.

The name index is a Chroma collection kept in step with the graph by ``sync``: entities
created since the last sync are embedded. Vocabulary entities carry their curated synonyms
as aliases and are matched exactly, so by default only entities learned online (from
evidence) are embedded; ``include_vocabulary`` embeds vocabulary names too (~640 names/s).
"""

from __future__ import annotations

import json
import re
from dataclasses import KW_ONLY, dataclass
from pathlib import Path

from amg.tools.kg.grounding import GENERIC_TERMS
from amg.tools.kg.schema import normalize_key
from amg.tools.kg.store.protocols import QAReads
from amg.tools.vectors.embeddings import embed
from amg.tools.vectors.passages import open_collection

SYNC_BATCH = 2000
MAX_NGRAM = 6
SHORT_WORD = 4  # ontology synonyms include acronyms that are also English words once case is folded


def _plain_short_word(words: list[str], start: int, size: int) -> bool:
    """A lone short word in lower case ("has", "the"): it names an acronym alias ("HAS", "THES") only when
    written as one."""
    return size == 1 and len(words[start]) <= SHORT_WORD and not words[start].isupper()


@dataclass
class Candidate:
    key: str
    name: str
    _: KW_ONLY
    type: str
    score: float
    how: str  # "exact" | "alias" | "embedding"


class EntityLinker:
    def __init__(self, store: QAReads, index_dir: Path, *, model_path: Path, threshold: float = 0.8):
        self.store, self.model_path, self.threshold = store, str(model_path), threshold
        self.collection = open_collection(index_dir, "entity_names")
        self._mark = index_dir / "entity_names.sync.json"

    def sync(self, progress=lambda n: None, include_vocabulary: bool = False) -> int:
        """Embed names of entities created since the last sync; returns how many were added.

        Vocabulary entities are matched by their curated synonyms, so they are only embedded
        with ``include_vocabulary``.
        """
        state = json.loads(self._mark.read_text()) if self._mark.exists() else {"after": "", "key": ""}
        added = 0
        while True:
            rows = self.store.entities_created_after(
                state["after"], state["key"], limit=SYNC_BATCH, include_vocabulary=include_vocabulary
            )
            if not rows:
                return added
            self.collection.upsert(
                ids=[r["key"] for r in rows],
                documents=[r["name"] for r in rows],
                metadatas=[{"name": r["name"], "type": r["type"]} for r in rows],
                embeddings=embed(self.model_path, [r["name"] for r in rows], batch_size=256),
            )
            added += len(rows)
            progress(len(rows))
            state = {"after": rows[-1]["at"], "key": rows[-1]["key"]}
            self._mark.write_text(json.dumps(state))

    def link(self, mention: str, k: int = 3) -> list[Candidate]:
        """Best graph entities for ``mention``; empty when nothing is close enough."""
        key = normalize_key(mention)
        if not key:
            return []
        found = self.store.lookup([key]).get(key)
        if found:
            return [
                Candidate(f["key"], f["name"], type=f["type"], score=1.0 if f["how"] == "exact" else 0.95, how=f["how"])
                for f in found[:k]
            ]
        if self.collection.count() == 0:
            return []
        hits = self.collection.query(query_embeddings=embed(self.model_path, [mention]), n_results=k)
        return [
            Candidate(ident, meta["name"], type=meta["type"], score=round(1 - dist, 3), how="embedding")
            for ident, meta, dist in zip(hits["ids"][0], hits["metadatas"][0], hits["distances"][0])
            if 1 - dist >= self.threshold
        ]

    def spot(self, text: str) -> list[Candidate]:
        """Vocabulary entities named in ``text``: longest non-overlapping word n-grams found in the graph."""
        words = re.findall(r"[\w'’+-]+", text)
        spans: dict[str, tuple[int, int]] = {}
        for size in range(min(MAX_NGRAM, len(words)), 0, -1):
            for start in range(len(words) - size + 1):
                key = normalize_key(" ".join(words[start : start + size]))
                if key and key not in GENERIC_TERMS and len(key) > 2 and not _plain_short_word(words, start, size):
                    spans.setdefault(key, (start, start + size))
        if not spans:
            return []
        found = [(k, hits[0]) for k, hits in self.store.lookup(list(spans)).items()]
        taken: set[int] = set()
        chosen: list[tuple[int, Candidate]] = []
        for k, hit in sorted(found, key=lambda pair: spans[pair[0]][0] - spans[pair[0]][1]):  # longest first
            first, last = spans[k]
            if taken.isdisjoint(range(first, last)) and all(c.key != hit["key"] for _, c in chosen):
                taken.update(range(first, last))
                chosen.append(
                    (first, Candidate(hit["key"], hit["name"], type=hit["type"], score=1.0, how="vocabulary"))
                )
        return [candidate for _, candidate in sorted(chosen, key=lambda pair: pair[0])]
