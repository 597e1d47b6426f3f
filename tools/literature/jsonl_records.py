"""Papers as JSON lines, recognised by their fields. Read line by line; a bad line is Skipped with its reason and
the file goes on. A line longer than ``MAX_LINE_BYTES`` is passed over without being held.

- PubMed records: ``{pmid, year, mesh[], sections[{label, text}]}`` (PubMedQA's corpus format), also ``title``,
  ``journal``, ``doi``, ``abstract``, ``revised`` and ``publication_types`` (PubMed's names: "Retracted
  Publication" marks a retracted paper);
- with ``any_paper`` (``amg ingest papers``), also SciFact's corpus, ``{doc_id, title, abstract: [sentence, …]}``
  (doc ids are S2ORC corpus ids: "s2:4983"), and records with a ``doi`` and no PMID; an abstract given as a list
  keeps its sentences (numbered as given).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from amg.tools.literature.byte_stream import ByteStream
from amg.tools.literature.paper_ids import doi_id, s2_id
from amg.tools.literature.pubmed_xml import Article, Deletion, Skipped
from amg.tools.literature.sentences import abstract_sentences

MAX_LINE_BYTES = 4 << 20  # a PubMed abstract with its metadata is a few kB; 4 MB is far past any real record
READ_BLOCK = 1 << 16


def read_jsonl(stream: ByteStream, any_paper: bool = False) -> Iterator[Article | Deletion | Skipped]:
    for line in _lines(stream):
        if line is None:
            yield Skipped(f"line longer than {MAX_LINE_BYTES:,} bytes")
            continue
        if not line.strip():
            continue
        try:
            row = json.loads(line.decode("utf-8"))
        except UnicodeDecodeError:
            yield Skipped("not UTF-8")
            continue
        except json.JSONDecodeError:
            yield Skipped("not a JSON object")
            continue
        yield paper_from_row(row) if any_paper else record_from_row(row)


def paper_from_row(row: object) -> Article | Deletion | Skipped:
    """A line of any format ``amg ingest papers`` reads: PubMed's by its ``pmid``, SciFact's by its ``doc_id`` and
    list of sentences, else a paper with a ``doi``."""
    if not isinstance(row, dict):
        return Skipped("not a JSON object")
    if str(row.get("pmid", "")).strip():
        record = record_from_row(row)
        sentences = _sentences(row.get("abstract"))
        if isinstance(record, Article) and isinstance(sentences, list) and sentences and not row.get("sections"):
            record.sentences, record.abstract = sentences, " ".join(sentences)
        return record
    if "doc_id" in row:
        paper = s2_id(row.get("doc_id"))
        if paper is None:
            return Skipped("doc_id is not a corpus id (a positive integer)")
    elif row.get("doi"):
        paper = doi_id(_plain(row.get("doi")))
        if paper is None:
            return Skipped("doi is not a DOI (10.NNNN/…)")
    else:
        return Skipped("no paper id (pmid, doi or doc_id)")
    sentences = _sentences(row.get("abstract"))
    if isinstance(sentences, str):
        return Skipped(sentences, paper)
    title = _plain(row.get("title"))
    if not sentences and not title:
        return Skipped("no title and no abstract", paper)
    year = str(row.get("year") or "").strip()[:4]
    return Article(
        pmid="",
        title=title,
        abstract=" ".join(sentences),
        year=int(year) if year.isdigit() else None,
        journal=_plain(row.get("journal")) or None,
        doi=(doi_id(_plain(row.get("doi"))) or "").removeprefix("doi:") or None,
        revised=_plain(row.get("revised")),
        paper=paper,
        sentences=sentences,
    )


def _sentences(abstract: object) -> list[str] | str:
    """An abstract's sentences: a list as given (whitespace folded, every place kept, since rationales cite
    sentences by their place), a text split into sentences; or why it cannot be read."""
    if abstract is None:
        return []
    if isinstance(abstract, str):
        return abstract_sentences(abstract)
    if not isinstance(abstract, list):
        return "abstract is neither text nor a list of sentences"
    if not all(isinstance(s, str) for s in abstract):
        return "abstract holds something other than sentences"
    sentences = [" ".join(s.split()) for s in abstract]
    return sentences if any(sentences) else "abstract has no sentences"


def record_from_row(row: object) -> Article | Deletion | Skipped:
    if not isinstance(row, dict):
        return Skipped("not a JSON object")
    pmid = str(row.get("pmid", "")).strip()
    if not pmid.isdigit() or len(pmid) > 10:
        return Skipped("missing or non-numeric PMID")
    if row.get("deleted") is True:
        return Deletion(pmid)
    sections = row.get("sections") or []
    if not isinstance(sections, list):
        return Skipped("sections is not a list", pmid)
    parts = [_section(s) for s in sections if isinstance(s, dict) and str(s.get("text") or "").strip()]
    abstract = "\n".join(parts) if parts else _plain(row.get("abstract"))
    title = _plain(row.get("title"))
    if not abstract and not title:
        return Skipped("no title and no abstract", pmid)
    year = str(row.get("year") or "").strip()[:4]
    mesh = row.get("mesh") or []  # MeSH terms; publication_types as PubMed names them ("Retracted Publication")
    return Article(
        pmid=pmid,
        title=title,
        abstract=abstract,
        year=int(year) if year.isdigit() else None,
        journal=_plain(row.get("journal")) or None,
        doi=_plain(row.get("doi")) or None,
        publication_types=_texts(row.get("publication_types")),
        mesh_terms=_texts(mesh),
        revised=_plain(row.get("revised")),
    )


def _texts(value: object) -> list[str]:
    return [_plain(v) for v in value if _plain(v)] if isinstance(value, list) else []


def _section(section: dict) -> str:
    label, text = _plain(section.get("label")), _plain(section.get("text"))
    return f"{label}: {text}" if label else text


def _plain(value: object) -> str:
    return " ".join(str(value).split()) if isinstance(value, (str, int, float)) else ""


def _lines(stream: ByteStream) -> Iterator[bytes | None]:
    """Lines as bytes; ``None`` in place of a line over the cap (read through in blocks, never held)."""
    while True:
        line = stream.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        if len(line) <= MAX_LINE_BYTES or line.endswith(b"\n"):
            yield line
            continue
        while line and not line.endswith(b"\n"):
            line = stream.readline(READ_BLOCK)
        yield None
