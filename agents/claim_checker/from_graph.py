"""A claim checked offline: the papers the graph's study findings rest on, read back from the sentences each
finding keeps (``quotes``) and those the stance step was shown when the paper was read, and the papers earlier checks
read for the claim's entities, read back from the sentences the stance step was shown (kept whether or not a finding
was: agents/claim_checker/findings.py), for the same stance step as papers found in the index
(agents/claim_checker/stance.py): what offline reads of a paper is what the check that learned it read.

The findings read are those on the claim's entities and those whose ends and sentences state the claim's words
(at least ``STATED_WORDS`` and ``STATED_SHARE`` of them, compared by Snowball stem: "supplementation" states
"supplements"): a related claim reaches them too. Each paper's sentences are those its findings kept, numbered as in
its abstract; the stance step's closeness gate then leaves out a paper whose sentences do not come near the claim.
"""

from __future__ import annotations

import json

import snowballstemmer

from amg.agents.claim_checker.paper import ClaimPaper, Sentence
from amg.tools.kg.schema import FINDINGS, normalize_key
from amg.tools.kg.store.protocols import ClaimReads
from amg.tools.kg.store.rows import FindingEdge
from amg.tools.literature.query_words import query_words

STATED_WORDS, STATED_SHARE = 2, 0.4
MAX_FINDINGS = 12
PAPERS_READ = 50  # papers read for the claim's entities that are weighed, newest first
_STEMMER = snowballstemmer.stemmer("english")


def states(shared: int, asked: set[str], share: float = STATED_SHARE) -> bool:
    """Whether a text sharing ``shared`` of the ``asked`` words states them: ``STATED_WORDS`` and ``share`` of them."""
    return shared >= STATED_WORDS and shared >= share * len(asked)


def stemmed_words(text: str) -> set[str]:
    """The content words of ``text`` by Snowball stem ("supplementation" and "supplements" are one)."""
    return set(_STEMMER.stemWords([normalize_key(w) for w in query_words(text, limit=500)]))


def findings_on(claim: str, keys: list[str], store: ClaimReads) -> list[FindingEdge]:
    """The findings on ``keys`` and those stating most of ``claim``'s words, most words first."""
    types = [r.name for r in FINDINGS]
    asked = stemmed_words(claim)
    rows = {(r["key"], r["rel"], r["other"]): r for r in (store.findings(keys, types, 0.0) if keys else [])}
    for row in store.every_finding(types):
        rows.setdefault((row["key"], row["rel"], row["other"]), row)

    def stated(row: FindingEdge) -> int:
        quotes = " ".join(json.loads(q)["text"] for q in row.get("quotes") or [])
        return len(
            asked
            & stemmed_words(f"{row.get('subject') or row['key']} {row['name']} {row['description'] or ''} {quotes}")
        )

    kept = [(stated(r), r) for r in rows.values()]
    kept = [(n, r) for n, r in kept if r.get("quotes") and states(n, asked)]
    return [r for _, r in sorted(kept, key=lambda pair: -pair[0])[:MAX_FINDINGS]]


def papers_from_graph(claim: str, keys: list[str], store: ClaimReads) -> list[ClaimPaper]:
    """[{id, title, url, year, pmid, doi, kind, sentences: [{n, text}]}] of the papers the claim's findings rest on,
    and of those a check read for the claim's entities whose kept sentences state the claim's words; each with the
    sentences its findings keep and those it was read with."""
    papers: dict[str, dict[int, str]] = {}  # paper id -> its sentences by number
    for row in findings_on(claim, keys, store):
        for quote in map(json.loads, row["quotes"]):
            papers.setdefault(quote["paper"], {}).setdefault(int(quote["n"]), quote["text"])
    asked = stemmed_words(claim)
    for read in store.papers_read(keys, PAPERS_READ) if keys else []:
        kept = [json.loads(s) for s in read.get("sentences") or []]
        shared = len(asked & stemmed_words(f"{read.get('title') or ''} {' '.join(k['text'] for k in kept)}"))
        if kept and states(shared, asked):
            for sentence in kept:
                papers.setdefault(read["id"], {}).setdefault(int(sentence["n"]), sentence["text"])
    held = {e["id"]: e for e in store.evidence(list(papers))} if papers else {}
    found = []
    for paper, sentences in papers.items():
        stored = held.get(paper)
        for sentence in map(json.loads, (stored.get("sentences") if stored else None) or []):
            sentences.setdefault(int(sentence["n"]), sentence["text"])
        found.append(
            ClaimPaper(
                id=paper,
                title=(stored.get("title") if stored else None) or "",
                url=stored.get("url") if stored else None,
                year=stored.get("year") if stored else None,
                pmid=stored.get("pmid") if stored else None,
                doi=stored.get("doi") if stored else None,
                kind=(stored.get("kind") if stored else None) or "pubmed",
                sentences=[Sentence(n=n, text=text) for n, text in sorted(sentences.items())],
            )
        )
    return found
