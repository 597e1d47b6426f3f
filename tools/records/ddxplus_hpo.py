"""DDXPlus evidences (and the values of those whose values are findings) -> the HPO term that means the same finding.

An evidence's question is read by the phenotype recogniser (names and synonyms, any word order and morphology), its
frame words left out ("Do you have polyps in your nose": polyps nose, Nasal polyposis), and each part of a question
that asks several things ("nasal congestion or a clear runny nose") by itself. A single word an HPO label is made of
counts too ("dizzy": Dizziness, "nauseous": Nausea), which the recogniser leaves to labels as written. A term found
loosely (a word skipped, a weaker synonym) or by a single word is kept only when its name comes near the question
(MiniLM cosine, ``NEAR``): "weakness in your jaw" is no Retrognathia. Of the terms found, the evidence's is the one
naming most of the question's words. No term is given when the question asks about someone else ("Have any of your
family members ...": the finding is theirs), when the finding is what the patient cannot do ("an inability to open
your mouth" is no Open mouth), or for a follow-up question that grades or places a finding (how intense, where):
its values do. A place's value is a site's pain (or swelling) when "pain in the <place>" names a term below Pain
(below Edema): "pain in the ear" Ear pain, "headache" for a place named with "head"; a kind of pain or a rash's colour
names no term HPO has, so none is given.

    python -m amg.tools.records.ddxplus_hpo [folder] [--out tools/records/data/ddxplus_hpo.tsv]
"""

from __future__ import annotations

import argparse
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from amg.tools.phenotypes.lexicon import Lexicon, hpo_lexicon
from amg.tools.phenotypes.loose import NEAR
from amg.tools.phenotypes.recognizer import recognise
from amg.tools.phenotypes.word_keys import key as stem
from amg.tools.records.ddxplus import NOWHERE, Dictionary, Evidence, join_code, load_dictionary
from amg.tools.records.ddxplus_phrases import asks_about_others, core, role
from amg.tools.records.ddxplus_words import FILLER, FRAME, PLACES, word_keys
from amg.tools.records.vectors import Embed, minilm

PAIN, EDEMA = "HP:0012531", "HP:0000969"
SURE = 1.0
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_OR = re.compile(r"\bor\b(?!\s+(?:more|both|several)\b)|/", re.IGNORECASE)
_AGENT = re.compile(r"\s*(?:virus|viral|bacteri\w*|infection|vaccine)\b", re.IGNORECASE)
COVERED = 0.5  # of its part's words a term must name
_UNABLE = re.compile(r"\b(?:inability to|unable to|hard time|difficulty|trouble)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
_SIDE = re.compile(r"\((?:R|L)\)$")
_SITE_KEYS = frozenset(stem(w) for names in PLACES.values() for name in names for w in _WORD.findall(name)) - {
    stem(w) for w in ("the", "of", "back", "side", "top", "upper", "lower", "inside", "under", "below", "front")
}
TABLE = Path(__file__).parent / "data" / "ddxplus_hpo.tsv"


@dataclass(frozen=True)
class HpoLink:
    code: str  # an evidence code, or an evidence's value code (E_55_@_V_89)
    question: str  # the question, and the value's name after " :: "
    hpo_id: str  # "" when no term means it
    label: str  # the term's name, or why there is none
    how: str  # how it was matched
    others: tuple[str, ...] = ()  # other terms the question names in part ("nasal congestion or a runny nose")


def hpo_links(dictionary: Dictionary, lexicon: Lexicon | None = None, embed: Embed | None = None) -> list[HpoLink]:
    """A link for every evidence, and for every value of a place or kind question, in the dictionary's order."""
    lexicon = lexicon or hpo_lexicon()
    embed = embed or minilm()
    links = []
    for evidence in dictionary.evidences.values():
        links.append(_evidence_link(evidence, dictionary, lexicon=lexicon, embed=embed))
        if role(evidence, dictionary) in ("pain", "swelling") and not evidence.scale and _places(evidence):
            links.extend(_place_links(evidence, lexicon))
    return links


def evidence_terms(links: list[HpoLink]) -> dict[str, list[str]]:
    """{evidence code: its term and the others its question names} of the evidences that have one."""
    return {link.code: [link.hpo_id, *link.others] for link in links if link.hpo_id and "_@_" not in link.code}


def read_table(path: Path = TABLE) -> list[HpoLink]:
    """The links of a table ``write_table`` wrote (the reviewed one by default)."""
    links = []
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        code, question, hpo_id, label, how, also = (line.split("\t") + [""] * 6)[:6]
        links.append(HpoLink(code, question, hpo_id, label, how, tuple(also.split())))
    return links


def write_table(links: list[HpoLink], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = ["code\tquestion\thpo_id\thpo_label\thow\talso"]
    rows += [f"{k.code}\t{k.question}\t{k.hpo_id}\t{k.label}\t{k.how}\t{' '.join(k.others)}" for k in links]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


def _evidence_link(evidence: Evidence, dictionary: Dictionary, *, lexicon: Lexicon, embed: Embed) -> HpoLink:
    def none(why: str) -> HpoLink:
        return HpoLink(evidence.code, evidence.question, "", why, "none")

    if asks_about_others(evidence):
        return none("another person's finding (family, contact)")
    if evidence.kind != "B" and not evidence.yes_no:
        return none("a follow-up that grades or places a finding: its values carry it")
    question = core(evidence.question)
    found = _candidates(question, lexicon)
    if not found:
        return none("no HPO label in the question")
    kept = _near(question, found, lexicon=lexicon, embed=embed)
    if not kept:
        return none("only loose labels, far from the question")
    whole = [c for c in kept if _names_most_of_its_part(c, question, kept)]
    if not whole:
        best = max(kept, key=lambda c: (c.words, -c.order))
        return none(f"{lexicon.terms[best.term_id].name} names only part of it")
    best = max(whole, key=lambda c: (c.words, -c.order))
    others = tuple(dict.fromkeys(c.term_id for c in whole if c.term_id != best.term_id))
    return HpoLink(evidence.code, evidence.question, best.term_id, lexicon.terms[best.term_id].name, best.how, others)


@dataclass(frozen=True)
class _Candidate:
    term_id: str
    words: int  # question words it names
    order: int  # where in the question it starts
    how: str
    sure: bool  # found in the question as written, at full confidence
    keys: frozenset[str]  # the word keys of the words it names


def _candidates(question: str, lexicon: Lexicon) -> list[_Candidate]:
    """Terms the question names; those found only once its frame words are out ("polyps nose"), loosely, or by one
    word that is a label ("dizzy", "nauseous") are unsure. A name that is part of an agent's ("human immunodeficiency
    virus") names no finding."""
    plain = " ".join(w for w in _WORD.findall(question) if w.lower() not in FRAME)
    found: dict[str, _Candidate] = {}
    for text in (question, plain):
        for mention in recognise(text, lexicon):
            if mention.negated or _UNABLE.search(text[: mention.start]) or _AGENT.match(text[mention.end :]):
                continue
            sure = mention.confidence >= SURE and text is question
            how = "recogniser" if mention.confidence >= SURE else f"recogniser, loose ({mention.confidence:.2f})"
            held = found.get(mention.id)
            if held is None or (sure and not held.sure):
                order = question.lower().find(mention.text.split()[0].lower())
                keys = _keys(mention.text) or frozenset(stem(w) for w in _WORD.findall(mention.text)) - {""}
                found[mention.id] = _Candidate(mention.id, len(keys), order, how, sure, keys)
    for word in _WORD.findall(plain):
        for key in sorted(word_keys(word)):
            hit = lexicon.labels.get(frozenset({key}))
            if hit and hit[1] not in found:
                order = question.lower().find(word.lower())
                found[hit[1]] = _Candidate(hit[1], 1, order, f"one word ({word})", False, frozenset({stem(word)}))
    return list(found.values())


def _near(question: str, found: list[_Candidate], *, lexicon: Lexicon, embed: Embed) -> list[_Candidate]:
    """The sure candidates, and the others whose term's name comes within NEAR of the question (MiniLM cosine)."""
    unsure = [c for c in found if not c.sure]
    if not unsure:
        return found
    vectors = embed([question, *(lexicon.terms[c.term_id].name for c in unsure)])
    near = {c.term_id for c, v in zip(unsure, vectors[1:]) if float(np.dot(vectors[0], v)) >= NEAR}
    return [c for c in found if c.sure or c.term_id in near]


def _names_most_of_its_part(candidate: _Candidate, question: str, kept: list[_Candidate]) -> bool:
    """Whether the term names at least half the words of the part of the question it is in: a question that asks
    several things ("A or B", "A, B or C") has a part each, and an item of a list after the first counts only when
    the first is named too ("treated in hospital for nausea, agitation ...": not Agitation)."""
    for part in _OR.split(question):
        items = [_keys(i) for i in part.split(",") if _keys(i)]
        for position, keys in enumerate(items):
            if candidate.keys & keys and (candidate.keys <= keys or len(candidate.keys) == 1):
                first_named = any(_covers(c.keys, items[0]) for c in kept)
                return (
                    _covers(candidate.keys, keys) and (position == 0 or first_named) and not _sited(candidate, question)
                )
    return _covers(candidate.keys, _keys(question))


def _sited(candidate: _Candidate, question: str) -> bool:
    """Bare Pain in a question that names a site ("pain or weakness in your jaw"): the question's is a site's pain."""
    return candidate.term_id == PAIN and bool(_keys(question) & _SITE_KEYS)


def _covers(named: frozenset[str], keys: frozenset[str]) -> bool:
    return bool(keys) and len(named & keys) >= COVERED * len(keys)


def _keys(text: str) -> frozenset[str]:
    """The keys of the words that say what a part of a question asks (no frame, time or filler word, no number)."""
    words = _WORD.findall(text)
    return frozenset(stem(w) for w in words if w.lower() not in FRAME | FILLER and not w.isdigit()) - {""}


def _places(evidence: Evidence) -> bool:
    return any(v.name == NOWHERE for v in evidence.values)


def _place_links(evidence: Evidence, lexicon: Lexicon) -> list[HpoLink]:
    """Each place value -> a site's pain (or swelling): a term below Pain (Edema), or a headache, that "pain in the
    <place>" names, whose names hold the place's head word ("back of the knee" is no Back pain)."""
    swelling = "swell" in evidence.question.lower()
    root = EDEMA if swelling else PAIN
    below = lexicon.below(root)
    links = []
    for value in evidence.values:
        if value.name == NOWHERE:
            continue
        place = _SIDE.sub("", value.name).strip()
        term, how = "", ""
        for words in PLACES.get(place, (place,)):
            texts = [f"swelling of the {words}", f"{words} swelling"] if swelling else [f"pain in the {words}"]
            texts += [] if swelling else [f"{words} pain"] + (["headache"] if "head" in words.split() else [])
            for text in texts:
                term = next(
                    (m.id for m in recognise(text, lexicon) if _site_term(m, text, place=words, below=below)), ""
                )
                if term:
                    how = f'value: "{text}"'
                    break
            if term:
                break
        name = lexicon.terms[term].name if term else "no site term below " + lexicon.terms[root].name
        code = join_code(evidence.code, value.code)
        links.append(HpoLink(code, f"{evidence.question} :: {value.name}", term, name, how or "none"))
    return links


def _site_term(mention, text: str, *, place: str, below: set[str]) -> bool:
    if mention.confidence < SURE:
        return False
    if text == "headache":
        return mention.name == "Headache"
    head = stem(_WORD.findall(place)[-1])
    lexicon = hpo_lexicon()
    named = {stem(w) for label, _ in lexicon.terms[mention.id].labels for w in _WORD.findall(label)}
    return mention.id in below and head in named


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    shared = os.environ.get("AMG_SHARED_DATA") or Path(__file__).resolve().parents[3] / "shared" / "data"
    parser.add_argument("folder", nargs="?", default=str(Path(shared) / "patients"))
    parser.add_argument("--out", default=str(TABLE))
    args = parser.parse_args(argv)
    links = hpo_links(load_dictionary(args.folder))
    write_table(links, Path(args.out))
    evidences = [k for k in links if "_@_" not in k.code]
    values = [k for k in links if "_@_" in k.code]
    print(
        f"evidences with a term: {sum(bool(k.hpo_id) for k in evidences)}/{len(evidences)}; "
        f"place values with a term: {sum(bool(k.hpo_id) for k in values)}/{len(values)}; table: {args.out}"
    )


if __name__ == "__main__":
    main()
