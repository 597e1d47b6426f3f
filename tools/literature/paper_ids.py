"""Paper ids in their own schemes and the link each one shows: a PMID, a DOI, or an S2ORC corpus id.

A paper id is ``scheme:value`` ("pmid:10354335", "doi:10.1056/nejmoa1800389", "s2:4983"), the same string the
graph's Evidence nodes use as their id. The local literature index keys a PubMed record by its PMID's digits (as
it always has) and any other record by its whole paper id, so the two can never collide.
"""

from __future__ import annotations

import re
from urllib.parse import quote

SCHEMES = ("pmid", "doi", "s2")
_DOI = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)?(10\.\d{4,9}/\S+)$", re.IGNORECASE)


def pmid_id(pmid: str) -> str:
    return f"pmid:{pmid}"


def doi_id(doi: str) -> str | None:
    """The paper id of ``doi`` (bare, doi:…, or a doi.org link; DOIs are case-insensitive: lower-cased), or None."""
    match = _DOI.match(" ".join(str(doi).split()))
    return f"doi:{match.group(1).lower()}" if match else None


def s2_id(corpus_id: object) -> str | None:
    """The paper id of an S2ORC corpus id (SciFact's doc ids), or None when it is not a positive integer."""
    text = str(corpus_id).strip()
    return f"s2:{int(text)}" if text.isdigit() and int(text) > 0 else None


def scheme_of(paper_id: str) -> str:
    scheme = paper_id.split(":", 1)[0]
    return scheme if scheme in SCHEMES and ":" in paper_id else ""


def link(paper_id: str) -> str:
    """Where a reader opens the paper: PubMed for a PMID, doi.org for a DOI, Semantic Scholar for a corpus id."""
    scheme, _, value = paper_id.partition(":")
    if scheme == "pmid":
        return f"https://pubmed.ncbi.nlm.nih.gov/{value}/"
    if scheme == "doi":
        return f"https://doi.org/{quote(value, safe='/:;()._-')}"
    if scheme == "s2":
        return f"https://api.semanticscholar.org/CorpusID:{value}"
    return ""


def label(paper_id: str) -> str:
    """The id as a reader sees it: "PMID 10354335", "DOI 10.1056/…", "CorpusID 4983"."""
    scheme, _, value = paper_id.partition(":")
    return {"pmid": f"PMID {value}", "doi": f"DOI {value}", "s2": f"CorpusID {value}"}.get(scheme, paper_id)


def index_key(paper_id: str) -> str:
    """The local index's key of ``paper_id``: a PMID's digits, any other id whole."""
    return paper_id.removeprefix("pmid:")


def from_index_key(key: str) -> str:
    return pmid_id(key) if key.isdigit() else key
