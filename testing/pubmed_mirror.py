"""NLM's PubMed distribution in miniature, for tests and benchmarks: ``baseline/`` and ``updatefiles/`` of
gzipped ``PubmedArticleSet`` files, each with its ``.md5`` in NLM's format, and the servers that serve it.

``write_file`` writes one file as NLM does (gzip, then ``MD5(NAME)= HEX``); ``article``/``deletion`` make
records in the real schema (``MedlineCitation`` with ``DateRevised``, ``PublicationTypeList`` and
``CommentsCorrectionsList``, ``PubmedData``). ``FIXTURE_TREE`` is tests/data/pubmed_mirror, built by
``build_fixture_tree`` (run this module to write it again). ``serve`` runs ``python -m http.server`` on a
free loopback port and stops it by its PID.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from html import escape
from pathlib import Path

FIXTURE_TREE = Path(__file__).resolve().parents[1] / "tests" / "data" / "pubmed_mirror"
HEAD = (
    '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, '
    '1st January 2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">\n<PubmedArticleSet>\n'
)
RETRACTED = "Retracted Publication"


def article(
    pmid: int,
    title: str,
    sections: list[tuple[str, str]],
    year: int = 2020,
    revised: str = "2024-01-10",
    types: tuple[str, ...] = ("Journal Article",),
    retraction_in: int | None = None,
    retraction_of: int | None = None,
    mesh: tuple[str, ...] = (),
) -> str:
    """One ``PubmedArticle`` as NLM writes it; ``retraction_in``: the PMID of the notice retracting it."""
    y, m, d = revised.split("-")
    abstract = "".join(
        f'<AbstractText Label="{escape(label)}" NlmCategory="{escape(label)}">{escape(text)}</AbstractText>'
        if label
        else f"<AbstractText>{escape(text)}</AbstractText>"
        for label, text in sections
    )
    links = "".join(
        f'<CommentsCorrections RefType="{kind}"><RefSource>Notice. {year + 1};1:1</RefSource>'
        f'<PMID Version="1">{other}</PMID></CommentsCorrections>'
        for kind, other in (("RetractionIn", retraction_in), ("RetractionOf", retraction_of))
        if other
    )
    return (
        f'<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">{pmid}</PMID>'
        f"<DateRevised><Year>{y}</Year><Month>{m}</Month><Day>{d}</Day></DateRevised>"
        f'<Article PubModel="Print"><Journal><ISSN IssnType="Print">0000-0000</ISSN>'
        f'<JournalIssue CitedMedium="Print"><Volume>1</Volume><PubDate><Year>{year}</Year></PubDate></JournalIssue>'
        f"<Title>Journal of Examples</Title></Journal><ArticleTitle>{escape(title)}</ArticleTitle>"
        f"<Abstract>{abstract}</Abstract><Language>eng</Language><PublicationTypeList>"
        + "".join(f'<PublicationType UI="D0">{escape(t)}</PublicationType>' for t in types)
        + "</PublicationTypeList></Article>"
        + (f"<CommentsCorrectionsList>{links}</CommentsCorrectionsList>" if links else "")
        + (
            "<MeshHeadingList>"
            + "".join(f'<MeshHeading><DescriptorName UI="D0">{escape(t)}</DescriptorName></MeshHeading>' for t in mesh)
            + "</MeshHeadingList>"
            if mesh
            else ""
        )
        + f'</MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType="pubmed">{pmid}</ArticleId>'
        "</ArticleIdList></PubmedData></PubmedArticle>\n"
    )


def deletion(*pmids: int) -> str:
    return "<DeleteCitation>" + "".join(f'<PMID Version="1">{p}</PMID>' for p in pmids) + "</DeleteCitation>\n"


def write_file(root: Path, folder: str, name: str, records: list[str]) -> Path:
    """``root/folder/name`` gzipped (no timestamp inside, so the same records give the same bytes) and its
    ``.md5`` in NLM's format."""
    path = root / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress((HEAD + "".join(records) + "</PubmedArticleSet>\n").encode(), mtime=0))
    path.with_name(name + ".md5").write_text(f"MD5({name})= {hashlib.md5(path.read_bytes()).hexdigest()}\n")
    return path


DAY_SURGERY = [
    ("BACKGROUND", "Audit of patient satisfaction after day surgery is labour-intensive."),
    ("METHODS", "Medical students telephoned 120 patients on the day after their day-case operation."),
    ("CONCLUSIONS", "Medical students can contribute to quality assurance programmes in day surgery."),
]
LACTIC = [("", "Lactic acidosis was rare among metformin users with moderate renal impairment.")]
LACTIC_REVISED = LACTIC + [("", "eGFR-guided dosing kept it rare.")]


def fixture_records() -> dict[tuple[str, str], list[str]]:
    """The fixture tree: two baseline files and two update files; the second update retracts the day-surgery
    paper (PMID 10354335, the one the literature loop learns a finding from), the first revises 20000001 and
    deletes 20000002."""
    day = "Can medical students contribute to quality assurance programmes in day surgery?"
    lactic = "Metformin and lactic acidosis in renal impairment."
    return {
        ("baseline", "pubmed25n0001.xml.gz"): [
            article(10354335, day, DAY_SURGERY, 1999, "2019-11-06", mesh=("Students, Medical",)),
            article(20000001, lactic, LACTIC, 2008, "2020-01-10", mesh=("Metformin",)),
        ],
        ("baseline", "pubmed25n0002.xml.gz"): [
            article(20000002, "Inhaled corticosteroids in asthma.", [("", "Steroids reduced exacerbations.")], 2011),
            article(20000005, "SGLT2 inhibitors and heart failure.", [("CONCLUSION", "SGLT2 inhibitors helped.")]),
        ],
        ("updatefiles", "pubmed25n0003.xml.gz"): [
            article(20000001, lactic, LACTIC_REVISED, 2008, "2025-01-05", mesh=("Metformin",)),
            deletion(20000002),
        ],
        ("updatefiles", "pubmed25n0004.xml.gz"): [
            article(10354335, day, DAY_SURGERY, 1999, "2025-02-01", ("Journal Article", RETRACTED), 20000099),
            article(
                20000099,
                f"Retraction notice: {day}",
                [("", "The article has been retracted at the authors' request.")],
                2025,
                "2025-02-01",
                ("Retraction of Publication",),
                retraction_of=10354335,
            ),
        ],
    }


def build_fixture_tree(root: Path = FIXTURE_TREE, only: set[str] | None = None) -> Path:
    """Write the fixture tree under ``root`` (``only``: just these file names)."""
    for (folder, name), records in fixture_records().items():
        if only is None or name in only:
            write_file(root, folder, name, records)
    return root


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def serve(directory: Path, timeout_s: float = 30.0) -> Iterator[str]:
    """``python -m http.server`` serving ``directory`` on a free loopback port: its base URL; stopped by its PID."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port), "--directory", str(directory)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                urllib.request.urlopen(url, timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError(f"http.server on port {port} did not start") from None
                time.sleep(0.05)
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(server.pid, signal.SIGTERM)
        server.wait(timeout=10)


if __name__ == "__main__":
    print(build_fixture_tree())
