"""The stored patients most like a case: findings weighed by how rare and how specific they are, contradictions
counted against a pair.

A patient's present findings stand for their ancestors too (HPO's true-path rule: a patient with focal seizures has
seizures), so "Focal seizure" and "Seizure" meet at "Seizure". Each finding f weighs

    w(f) = idf(f) x specificity(f)^gamma,   idf(f) = log((N + 1) / (n(f) + 1))

where n(f) counts the stored patients who have f (or something finer) and ``specificity`` says how few diseases the
knowledge links to it (1 = one disease, 0 = every disease; tools/records/weights.py). A pair scores like simGIC, the
weight the two share over the weight of either, less what they contradict (one has f, the other is known to lack f
or something broader than f):

    sim(q, r) = (W(Q & R) - lambda x W(contradicted)) / W(Q | R)

over the expanded sets. All of it is sparse matrix products over the stored patients: one query over 100,000 patients
is a few matrix-vector products (benchmarks/records_similarity.py).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import sparse

# chosen on the fit half of the phenopackets dev cases (hit@3 0.760 at these against 0.707 with lambda 1): patients of
# one disease differ in what their records exclude, so a contradiction costs a tenth of what a shared finding gains
CONTRADICTION = 0.1  # lambda
GAMMA = 2.0  # how much a finding's specificity counts beside its rarity


@dataclass(frozen=True, kw_only=True)
class Similar:
    """A stored patient like the case: its id, similarity, diagnoses (as stored), the case's findings it shares and
    those it contradicts (graph keys)."""

    id: str
    score: float
    diagnoses: tuple[str, ...]
    shared: tuple[str, ...]
    contradicted: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class DiseaseCounts:
    """Of the stored patients with one diagnosis: how many, and how many have / are known to lack each finding."""

    patients: int
    present: dict[str, int]
    absent: dict[str, int]


@dataclass(frozen=True, kw_only=True)
class IndexedPatient:
    """What the index needs of a patient: id, present and absent finding keys, diagnosis keys."""

    id: str
    present: frozenset[str]
    absent: frozenset[str]
    diagnoses: tuple[str, ...]


class PatientIndex:
    """Stored patients as sparse rows over findings (``expand``: a finding's ancestors' keys; ``specificity``: a
    finding's specificity in [0, 1])."""

    def __init__(
        self,
        patients: Sequence[IndexedPatient],
        expand: Callable[[str], set[str]],
        *,
        specificity: Callable[[str], float],
        names: dict[str, str] | None = None,
        contradiction: float = CONTRADICTION,
        gamma: float = GAMMA,
    ):
        self.expand = expand
        self.names = dict(names or {})  # diagnosis key -> the name the records give it
        self.contradiction = contradiction
        self.ids = [p.id for p in patients]
        self.diagnoses = [p.diagnoses for p in patients]
        self._ancestors: dict[str, frozenset[str]] = {}
        expanded = [self._up(p.present) for p in patients]
        features = sorted(set().union(*expanded, *(p.absent for p in patients))) if patients else []
        self.features = features
        self.column = {f: i for i, f in enumerate(features)}
        self.present = self._matrix(expanded)  # expanded present findings
        self.given = self._matrix([p.present for p in patients])  # present findings as recorded
        self.absent = self._matrix([p.absent for p in patients])
        counts = np.asarray(self.present.sum(axis=0)).ravel() if patients else np.zeros(0)
        idf = np.log((len(patients) + 1) / (counts + 1))
        spec = np.array([min(max(specificity(f), 0.0), 1.0) for f in features])
        self.weight = idf * spec**gamma
        self.row_weight = self.present @ self.weight if patients else np.zeros(0)

    def __len__(self) -> int:
        return len(self.ids)

    def _up(self, findings: frozenset[str] | set[str]) -> set[str]:
        out = set(findings)
        for f in findings:
            if f not in self._ancestors:
                self._ancestors[f] = frozenset(self.expand(f))
            out |= self._ancestors[f]
        return out

    def _matrix(self, rows: list) -> sparse.csr_matrix:
        indptr, indices = [0], []
        for row in rows:
            indices.extend(sorted(self.column[f] for f in row if f in self.column))
            indptr.append(len(indices))
        data = np.ones(len(indices), dtype=np.float32)
        shape = (len(rows), len(self.column))
        return sparse.csr_matrix((data, np.array(indices, dtype=np.int32), np.array(indptr)), shape=shape)

    def _vector(self, findings: set[str]) -> np.ndarray:
        vector = np.zeros(len(self.features))
        for f in findings:
            if f in self.column:
                vector[self.column[f]] = self.weight[self.column[f]]
        return vector

    def scores(self, present: set[str], absent: set[str]) -> np.ndarray:
        """Every stored patient's similarity to the case (present and absent finding keys)."""
        if not self.ids:
            return np.zeros(0)
        case = self._up(present)
        q_present, q_absent = self._vector(case), self._vector(set(absent))
        shared = self.present @ q_present
        against = self.absent @ q_present + self.present @ q_absent
        union = self.row_weight + q_present.sum() - shared
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (shared - self.contradiction * against) / union
        return np.nan_to_num(out, nan=0.0, posinf=0.0, neginf=0.0)

    def similar(
        self, present: set[str], absent: set[str], *, k: int = 3, exclude: frozenset[str] | set[str] = frozenset()
    ) -> list[Similar]:
        """The ``k`` stored patients most like the case, best first (``exclude``: ids left out, e.g. the case's own)."""
        scores = self.scores(present, absent)
        if not len(scores) or k <= 0:
            return []
        wanted = min(len(scores), k + len(exclude))
        top = np.argpartition(-scores, wanted - 1)[:wanted]
        ranked = sorted(top, key=lambda i: (-scores[i], self.ids[i]))
        chosen = [i for i in ranked if self.ids[i] not in exclude and scores[i] > 0][:k]
        case = self._up(present)
        return [self._explain(i, float(scores[i]), present=present, absent=absent, case=case) for i in chosen]

    def _explain(self, row: int, score: float, *, present: set[str], absent: set[str], case: set[str]) -> Similar:
        def names(matrix: sparse.csr_matrix) -> set[str]:
            return {self.features[j] for j in matrix.indices[matrix.indptr[row] : matrix.indptr[row + 1]]}

        theirs, their_given, their_absent = names(self.present), names(self.given), names(self.absent)
        shared = {f for f in present if f in theirs} | {f for f in their_given if f in case}
        shared -= {a for f in shared for a in self._ancestors.get(f, ())}  # the finest of each shared line
        against = {f for f in case if f in their_absent} | {f for f in absent if f in theirs}
        return Similar(
            id=self.ids[row],
            score=round(score, 4),
            diagnoses=self.diagnoses[row],
            shared=tuple(sorted(shared)),
            contradicted=tuple(sorted(against)),
        )

    def vote(self, present: set[str], absent: set[str], *, k: int = 3) -> dict[str, float]:
        """{diagnosis: share}: the diagnoses of the ``k`` most similar patients, weighted by similarity."""
        votes: dict[str, float] = {}
        for patient in self.similar(present, absent, k=k):
            for d in patient.diagnoses:
                votes[d] = votes.get(d, 0.0) + patient.score / max(len(patient.diagnoses), 1)
        total = sum(votes.values())
        return {d: v / total for d, v in sorted(votes.items(), key=lambda x: -x[1])} if total > 0 else {}

    def rows_of(self, diagnosis: str) -> list[int]:
        """The rows of the stored patients with ``diagnosis``."""
        if not hasattr(self, "_by_diagnosis"):
            by: dict[str, list[int]] = {}
            for row, diagnoses in enumerate(self.diagnoses):
                for d in diagnoses:
                    by.setdefault(d, []).append(row)
            self._by_diagnosis = by
        return self._by_diagnosis.get(diagnosis, [])

    def features_of(self, diagnoses: list[str]) -> set[str]:
        """The findings recorded (as given, not their ancestors) for any stored patient with these diagnoses."""
        rows = sorted({r for d in diagnoses for r in self.rows_of(d)})
        if not rows:
            return set()
        return {self.features[c] for c in np.unique(self.given[rows].indices)}

    def frequencies(self, diagnoses: list[str], findings: set[str]) -> dict[str, DiseaseCounts]:
        """How often the stored patients with each diagnosis have each of ``findings`` (or something finer), and how
        many are known to lack it: the records' half of p(finding | disease)."""
        cols = sorted({self.column[f] for f in findings if f in self.column})
        names = [self.features[c] for c in cols]
        out = {}
        for d in diagnoses:
            rows = self.rows_of(d)
            if not rows:
                continue
            has: np.ndarray = np.asarray(self.present[rows][:, cols].sum(axis=0)).ravel() if cols else np.zeros(0)
            lacks: np.ndarray = np.asarray(self.absent[rows][:, cols].sum(axis=0)).ravel() if cols else np.zeros(0)
            out[d] = DiseaseCounts(
                patients=len(rows),
                present={f: int(n) for f, n in zip(names, has) if n},
                absent={f: int(n) for f, n in zip(names, lacks) if n},
            )
        return out

    def save(self, folder: Path) -> None:
        """Write the index to ``folder`` (a cache: rebuilt from the record store when stale)."""
        folder.mkdir(parents=True, exist_ok=True)
        sparse.save_npz(folder / "present.npz", self.present)
        sparse.save_npz(folder / "given.npz", self.given)
        sparse.save_npz(folder / "absent.npz", self.absent)
        np.save(folder / "weight.npy", self.weight)
        meta = {
            "ids": self.ids,
            "diagnoses": self.diagnoses,
            "names": self.names,
            "features": self.features,
            "lambda": self.contradiction,
        }
        (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")

    @classmethod
    def load(cls, folder: Path, expand: Callable[[str], set[str]]) -> PatientIndex:
        index = cls.__new__(cls)
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        index.expand = expand
        index.contradiction = meta["lambda"]
        index.ids, index.features = meta["ids"], meta["features"]
        index.diagnoses = [tuple(d) for d in meta["diagnoses"]]
        index.names = meta.get("names", {})
        index.column = {f: i for i, f in enumerate(index.features)}
        index._ancestors = {}
        index.present = sparse.load_npz(folder / "present.npz").tocsr()
        index.given = sparse.load_npz(folder / "given.npz").tocsr()
        index.absent = sparse.load_npz(folder / "absent.npz").tocsr()
        index.weight = np.load(folder / "weight.npy")
        index.row_weight = index.present @ index.weight if index.ids else np.zeros(0)
        return index


def specificity_from_counts(counts: dict[str, int], total: int) -> Callable[[str], float]:
    """A finding's specificity from how many of ``total`` diseases the knowledge links to it: log(total / n) /
    log(total), 1 for a finding of one disease; a finding the knowledge does not link to any disease counts as
    middling (0.5)."""
    scale = math.log(max(total, 2))

    def specificity(finding: str) -> float:
        n = counts.get(finding, 0)
        return 0.5 if n <= 0 else min(max(math.log(total / n) / scale, 0.0), 1.0)

    return specificity
