"""PubMed XML as NLM distributes it and as efetch returns it (``PubmedArticleSet``), read as a stream.

One reader for both routes, so a record from the local index and one from Entrez are the same
``Article``. Parsing is defused: a document that declares entities (billion laughs) or points at
an external one is refused, never expanded or fetched. Memory stays flat: each record's element
is dropped once read, so a 200 MB baseline file is never held whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import iterparse

from amg.tools.literature.byte_stream import ByteStream
from amg.tools.literature.paper_ids import link, pmid_id
from amg.tools.literature.sentences import abstract_sentences

RETRACTED = "Retracted Publication"  # NLM's publication type of a retracted paper (the notice is another type)
YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
MONTHS = {
    m: i
    for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)
}


class NotPubMedXML(ValueError):
    """The document is not (well-formed, safe) PubMed XML; the message says what is wrong."""


@dataclass
class Article:
    pmid: str
    title: str
    abstract: str  # "LABEL: text" lines, the abstract's sections in order (the last is usually the conclusion)
    year: int | None = None
    journal: str | None = None
    doi: str | None = None
    publication_types: list[str] = field(default_factory=list)
    mesh_terms: list[str] = field(default_factory=list)
    revised: str = ""  # YYYY-MM-DD the record was last revised (a later revision replaces an earlier one)
    # the retraction notices NLM links to it (CommentsCorrections RefType="RetractionIn": "PMID 123" or the
    # notice's citation); stored only when there are any, so existing records keep their digest
    retracted_in: list[str] = field(default_factory=list)

    # a record without a PMID (pmid ""): its id in its own scheme, "doi:…" or "s2:…" (tools/literature/paper_ids.py)
    paper: str = ""
    # the abstract's sentences where the source gives them (SciFact); a PubMed abstract is split when read
    sentences: list[str] = field(default_factory=list)

    @property
    def retracted(self) -> bool:
        """Whether PubMed says the paper was retracted (its publication type, or a linked retraction notice)."""
        return RETRACTED in self.publication_types or bool(self.retracted_in)

    @property
    def key(self) -> str:
        """The local index's key: the PMID, else the paper id."""
        return self.pmid or self.paper

    @property
    def evidence_id(self) -> str:
        """The paper id, the graph's Evidence id: "pmid:…", else "doi:…" or "s2:…"."""
        return pmid_id(self.pmid) if self.pmid else self.paper

    @property
    def url(self) -> str:
        """The link of the paper's own scheme: PubMed for a PMID, doi.org for a DOI, Semantic Scholar for an S2 id."""
        return link(self.evidence_id)

    def numbered(self) -> list[str]:
        """The abstract's sentences, numbered by their place (0 = the first): as the source gave them, else split."""
        return list(self.sentences) if self.sentences else abstract_sentences(self.abstract)

    @property
    def display_title(self) -> str:
        """The title, or for a record without one (PubMedQA's corpus) the abstract's opening words."""
        if self.title:
            return self.title
        opening = self.abstract.split("\n", 1)[0].split(": ", 1)[-1]
        return opening if len(opening) <= 120 else opening[:117].rsplit(" ", 1)[0] + "…"

    def conclusion_first(self) -> str:
        """Title, then the abstract with its conclusion first: a reader that reads only the opening (the
        reasoner reads a few hundred characters of each item) sees the finding, which abstracts put last."""
        sections = self.abstract.split("\n") if self.abstract else []
        if len(sections) > 1:
            labelled = [
                i for i, s in enumerate(sections) if s.split(":", 1)[0].strip().upper().startswith("CONCLUSION")
            ]
            last = labelled[-1] if labelled else len(sections) - 1
            sections = [sections[last], *sections[:last], *sections[last + 1 :]]
        return "\n".join(([self.title] if self.title else []) + sections)


@dataclass(frozen=True)
class Deletion:
    """A ``DeleteCitation`` entry of an update file: this PMID leaves PubMed."""

    pmid: str

    @property
    def key(self) -> str:
        return self.pmid


@dataclass(frozen=True)
class Skipped:
    """A record that cannot be used, with the reason counted in the ingest report."""

    reason: str
    pmid: str = ""


def read_articles(stream: ByteStream) -> Iterator[Article | Deletion | Skipped]:
    """Each record of a PubmedArticleSet document, in order; NotPubMedXML when the document itself is bad.

    Records before a fault (a truncated or malformed file) are yielded before the error is raised.
    """
    root: Element | None = None
    try:
        for event, elem in iterparse(stream, events=("start", "end"), forbid_dtd=False):
            if root is None:
                root = elem
                if _local(elem.tag) != "PubmedArticleSet":
                    raise NotPubMedXML(f"not PubMed XML: the document is <{_local(elem.tag)}>, not <PubmedArticleSet>")
                continue
            if event != "end":
                continue
            tag = _local(elem.tag)
            if tag == "PubmedArticle":
                yield article_from_element(elem)
            elif tag == "PubmedBookArticle":
                yield Skipped("book record (no journal article)", _text(elem.find(".//PMID")))
            elif tag == "DeleteCitation":
                for pmid in elem.iter("PMID"):
                    yield Deletion(pmid.text.strip()) if _is_pmid(pmid.text) else Skipped("non-numeric PMID")
            else:
                continue
            root.clear()  # the record is read: drop it and everything before it
    except DefusedXmlException as exc:
        raise NotPubMedXML(
            f"refused: the document declares entities or external references ({type(exc).__name__})"
        ) from None
    except ParseError as exc:
        raise NotPubMedXML(f"malformed XML: {exc}") from None
    if root is None:
        raise NotPubMedXML("empty document")


def article_from_element(elem: Element) -> Article | Skipped:
    """One ``PubmedArticle`` element as an Article; a record without a usable PMID or text is Skipped."""
    citation = elem.find("MedlineCitation")
    pmid = _text(citation.find("PMID")) if citation is not None else ""
    if citation is None or not _is_pmid(pmid):
        return Skipped("missing or non-numeric PMID")
    art = citation.find("Article")
    if art is None:
        return Skipped("no Article element", pmid)
    sections = []
    for part in art.findall("Abstract/AbstractText"):
        text = _text(part)
        if text:
            label = part.get("Label")
            sections.append(f"{label}: {text}" if label else text)
    title = _text(art.find("ArticleTitle")) or _text(art.find("VernacularTitle"))
    if not sections and not title:
        return Skipped("no title and no abstract", pmid)
    journal = art.find("Journal")
    pub_date = journal.find("JournalIssue/PubDate") if journal is not None else None
    year_text = " ".join(_text(pub_date.find(tag)) for tag in ("Year", "MedlineDate")) if pub_date is not None else ""
    year = YEAR.search(year_text) or YEAR.search(_text(art.find("ArticleDate/Year")))
    doi = next(
        (_text(i) for i in elem.findall("PubmedData/ArticleIdList/ArticleId") if i.get("IdType") == "doi"), None
    ) or next((_text(loc) for loc in art.findall("ELocationID") if loc.get("EIdType") == "doi"), None)
    return Article(
        pmid=pmid,
        title=title,
        abstract="\n".join(sections),
        year=int(year.group(1)) if year else None,
        journal=_text(journal.find("Title")) or None if journal is not None else None,
        doi=doi or None,
        publication_types=[_text(t) for t in art.findall("PublicationTypeList/PublicationType")],
        mesh_terms=[_text(d) for d in citation.findall("MeshHeadingList/MeshHeading/DescriptorName")],
        revised=_date(citation.find("DateRevised")),
        retracted_in=retraction_notices(citation),
    )


def retraction_notices(citation: Element) -> list[str]:
    """The retraction notices a MedlineCitation links to ("PMID 123", else the notice's citation text)."""
    found = []
    for comment in citation.findall("CommentsCorrectionsList/CommentsCorrections"):
        if comment.get("RefType") == "RetractionIn":
            pmid = _text(comment.find("PMID"))
            found.append(
                f"PMID {pmid}" if _is_pmid(pmid) else _text(comment.find("RefSource")) or "a retraction notice"
            )
    return found


def _date(elem: Element | None) -> str:
    if elem is None:
        return ""
    year, month, day = (_text(elem.find(tag)) for tag in ("Year", "Month", "Day"))
    month = str(MONTHS.get(month[:3].lower(), month))
    return f"{year}-{month.zfill(2)}-{day.zfill(2)}" if year.isdigit() and month.isdigit() and day.isdigit() else ""


def _text(elem: Element | None) -> str:
    """All text inside ``elem`` (titles and abstracts carry <i>, <sup>… markup), whitespace folded."""
    return " ".join("".join(elem.itertext()).split()) if elem is not None else ""


def _is_pmid(text: str | None) -> bool:
    return bool(text and text.strip().isdigit() and len(text.strip()) <= 10)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]
