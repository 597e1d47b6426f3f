"""HPO concept recognition on real case reports: the recogniser against human gold annotations.

The corpus is azankl/phenotypeCR_eval (case-report snippets annotated with HPO terms in INCEpTION, exported
as BioC). Its repository has no licence, so it is not copied here: the benchmark reads a checkout of it
(PATH, else $AMG_PHENOTYPE_CORPUS, else /tmp/phenotypeCR_eval) and says so when there is none.

Gold is annotator lwit, the only one with a file for all 290 documents. azankl's files cover 16, and only
5 of them hold an HPO id, on some sentences: her precision against lwit on those 5 is the human
agreement; her recall says how little she annotated, not a ceiling. The guidelines annotate only abnormal
findings that are there ("no kidney anomalies were found" is not), so only present mentions count. A discontinuous
phenotype is a relation between spans that carries the HPO term; its spans
are all of its parts. Spans without an HPO term (an "unlinked phenotype") are left out and counted, and a
prediction on one is not counted either way.

Each document is read sentence by sentence (the recogniser gives one mention per term per text, and the
gold annotates every occurrence). Scores:
  - per mention: one-to-one matches of a predicted span overlapping a gold span with the same HPO id;
    lenient: the predicted id may also be the gold id's is_a parent or child;
  - per document: the sets of HPO ids, micro-averaged over all documents and macro-averaged per document.
Besides today's recogniser (tools/phenotypes), an emulation of the vocabulary spotter it replaced
(commit 83438e8~1: HPO names and synonyms as whole word n-grams, ``EntityLinker.spot``; no negation,
stems or word order) on the same lexicon's labels.

    python -m benchmarks.phenotype_recognition [PATH] [--errors 20]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path

from amg.tools.kg.grounding import GENERIC_TERMS
from amg.tools.kg.linking import MAX_NGRAM, SHORT_WORD
from amg.tools.kg.schema import normalize_key
from amg.tools.phenotypes.lexicon import ABNORMALITY, Lexicon, hpo_lexicon
from amg.tools.phenotypes.recognizer import recognise
from benchmarks.report import emit

GOLD, SECOND = "lwit", "azankl"
DEFAULT = Path(os.environ.get("AMG_PHENOTYPE_CORPUS") or "/tmp/phenotypeCR_eval")
_HPO = re.compile(r"HP_(\d{7})\s*$")
Span = tuple[int, int]


@dataclass
class Mention:
    id: str  # "HP:0004322"
    spans: tuple[Span, ...]  # document offsets, one per part


@dataclass
class Document:
    name: str
    sentences: list[tuple[int, str]]  # (document offset, text)
    _: KW_ONLY
    mentions: list[Mention] = field(default_factory=list)
    unlinked: list[tuple[Span, ...]] = field(default_factory=list)  # phenotypes the annotator gave no HPO term


def hpo_id(infons: dict[str, str]) -> str | None:
    match = _HPO.search(infons.get("HPOterm", ""))
    return f"HP:{match.group(1)}" if match else None


def read_bioc(xml: str, name: str = "") -> Document:
    """One annotator's BioC file: its sentences, its mentions with an HPO id, and its phenotypes without one."""
    doc = Document(name, [])
    spans: dict[str, Span] = {}
    linked: list[tuple[str, list[str]]] = []  # (HPO id, node ids) of relations that carry one
    parts: dict[str, str] = {}  # union-find over relations without an HPO id: parts of one phenotype
    labelled: set[str] = set()

    def root(node: str) -> str:
        while parts.get(node, node) != node:
            node = parts[node]
        return node

    for sentence in ET.fromstring(xml).iter("sentence"):
        offset, text = int(sentence.findtext("offset")), sentence.findtext("text") or ""
        doc.sentences.append((offset, text))
        for ann in sentence.findall("annotation"):
            where = ann.find("location")
            start = offset + int(where.get("offset"))
            spans[ann.get("id")] = (start, start + int(where.get("length")))
            if term := hpo_id({i.get("key"): i.text or "" for i in ann.findall("infon")}):
                doc.mentions.append(Mention(term, (spans[ann.get("id")],)))
                labelled.add(ann.get("id"))
        for rel in sentence.findall("relation"):
            nodes = [n.get("refid") for n in rel.findall("node")]
            if term := hpo_id({i.get("key"): i.text or "" for i in rel.findall("infon")}):
                linked.append((term, nodes))
            else:
                for node in nodes[1:]:
                    parts[root(node)] = root(nodes[0])
    groups: dict[str, list[str]] = {}
    for node in spans:
        groups.setdefault(root(node), []).append(node)
    for term, nodes in linked:
        members = sorted({m for n in nodes for m in groups.get(root(n), [n]) if m in spans})
        doc.mentions.append(Mention(term, tuple(sorted(spans[m] for m in members))))
        labelled.update(members)
    doc.unlinked = [tuple(sorted(spans[m] for m in ms)) for ms in groups.values() if not labelled & set(ms)]
    return doc


def read_corpus(path: Path, annotator: str) -> list[Document]:
    """Every document the annotator's file exists for, in name order."""
    return [
        read_bioc(f.read_text(encoding="utf-8"), f.parent.name)
        for f in sorted((path / "Annotations_BioC").glob(f"*/{annotator}.xml"))
    ]


def recogniser(text: str, lexicon: Lexicon) -> list[tuple[str, Span]]:
    """Today's recogniser: its present (not negated) mentions."""
    return [(m.id, (m.start, m.end)) for m in recognise(text, lexicon) if not m.negated]


def spotter_index(lexicon: Lexicon) -> dict[str, str]:
    """{normalised label: HPO id} for the emulated vocabulary spotter: names first, then synonyms."""
    wanted, index = sorted(lexicon.below(ABNORMALITY)), {}
    for term_id in wanted:
        index.setdefault(normalize_key(lexicon.terms[term_id].name), term_id)
    for term_id in wanted:
        for label, _ in lexicon.terms[term_id].labels[1:]:
            index.setdefault(normalize_key(label), term_id)
    return index


def spotter(text: str, index: dict[str, str]) -> list[tuple[str, Span]]:
    """Emulation of ``EntityLinker.spot`` before 83438e8: longest non-overlapping word n-grams that are a
    label as written (normalised), one mention per term, no negation."""
    words = list(re.finditer(r"[\w'’+-]+", text))
    found: dict[str, tuple[int, int]] = {}
    for size in range(min(MAX_NGRAM, len(words)), 0, -1):
        for first in range(len(words) - size + 1):
            key = normalize_key(" ".join(w.group() for w in words[first : first + size]))
            plain = size == 1 and len(words[first].group()) <= SHORT_WORD and not words[first].group().isupper()
            if key in index and key not in GENERIC_TERMS and len(key) > 2 and not plain:
                found.setdefault(key, (first, first + size))
    taken, chosen = set(), {}
    for key, (first, last) in sorted(found.items(), key=lambda kv: kv[1][0] - kv[1][1]):  # longest first
        if taken.isdisjoint(range(first, last)) and index[key] not in chosen:
            taken.update(range(first, last))
            chosen[index[key]] = (words[first].start(), words[last - 1].end())
    return sorted(chosen.items(), key=lambda kv: kv[1])


def predict(doc: Document, system) -> list[Mention]:
    """The system's mentions of a document, read sentence by sentence, at document offsets."""
    return [
        Mention(term, ((offset + a, offset + b),)) for offset, text in doc.sentences for term, (a, b) in system(text)
    ]


def _overlap(one: Mention, other: Mention) -> bool:
    return any(a < d and c < b for a, b in one.spans for c, d in other.spans)


def matches(gold: list[Mention], predicted: list[Mention], related=None) -> int:
    """One-to-one matches of overlapping mentions with the same id; then, given ``related(a, b)``, of the
    rest with related ids."""
    free, left, found = list(predicted), list(gold), 0
    for same in (lambda a, b: a == b, related) if related else (lambda a, b: a == b,):
        still = []
        for mention in left:
            hit = next((p for p in free if same(p.id, mention.id) and _overlap(p, mention)), None)
            if hit is None:
                still.append(mention)
            else:
                free.remove(hit)
                found += 1
        left = still
    return found


def counted(doc: Document, predicted: list[Mention]) -> list[Mention]:
    """The predictions that do not fall on a gold span without an HPO id."""
    return [p for p in predicted if not any(_overlap(p, Mention("", spans)) for spans in doc.unlinked)]


def prf(right: int, predicted: int, gold: int) -> tuple[float, float, float]:
    """Precision, recall, F1 (0 where undefined, 1 for a document with nothing to find and nothing found)."""
    if not predicted and not gold:
        return 1.0, 1.0, 1.0
    p, r = right / predicted if predicted else 0.0, right / gold if gold else 0.0
    return p, r, 2 * p * r / (p + r) if p + r else 0.0


def score(pairs: list[tuple[Document, list[Mention]]], related) -> dict[str, float]:
    """Mention (strict and lenient) and document (micro and macro) precision, recall and F1; a prediction
    on a span the annotator marked as a phenotype without an HPO id is not counted."""
    totals, macro = Counter(), []
    for doc, predicted in pairs:
        predicted = counted(doc, predicted)
        gold_ids, pred_ids = {m.id for m in doc.mentions}, {m.id for m in predicted}
        totals.update(
            gold=len(doc.mentions),
            predicted=len(predicted),
            right=matches(doc.mentions, predicted),
            lenient=matches(doc.mentions, predicted, related),
            gold_ids=len(gold_ids),
            pred_ids=len(pred_ids),
            right_ids=len(gold_ids & pred_ids),
        )
        macro.append(prf(len(gold_ids & pred_ids), len(pred_ids), len(gold_ids)))
    figures = {}
    for name, right, predicted, gold in (
        ("mention", "right", "predicted", "gold"),
        ("mention_lenient", "lenient", "predicted", "gold"),
        ("document_micro", "right_ids", "pred_ids", "gold_ids"),
    ):
        values = prf(totals[right], totals[predicted], totals[gold])
        figures.update({f"{name}_{m}": round(v, 3) for m, v in zip(("precision", "recall", "f1"), values)})
    figures.update(
        {
            f"document_macro_{m}": round(sum(v[i] for v in macro) / max(len(macro), 1), 3)
            for i, m in enumerate(("precision", "recall", "f1"))
        }
    )
    return figures


def related_in(lexicon: Lexicon):
    """Whether two ids are the same term or one is the other's is_a parent."""

    def parents(term_id: str) -> list[str]:
        return lexicon.terms[term_id].parents if term_id in lexicon.terms else []

    return lambda a, b: a == b or a in parents(b) or b in parents(a)


def words(doc: Document, mention: Mention) -> str:
    """The text of a mention's parts."""
    return " … ".join(
        next(t[a - o : b - o] for o, t in doc.sentences if o <= a <= o + len(t)) for a, b in mention.spans
    )


def errors(pairs: list[tuple[Document, list[Mention]]], lexicon: Lexicon, count: int) -> None:
    """The terms most often missed and most often found wrongly (mentions of a term the document's gold,
    or prediction, set lacks), each with an example."""
    missed, wrong, example = Counter(), Counter(), {}
    for doc, predicted in pairs:
        predicted = counted(doc, predicted)
        for side, mentions, others in (("missed", doc.mentions, predicted), ("wrong", predicted, doc.mentions)):
            known = {m.id for m in others}
            for m in mentions:
                if m.id not in known:
                    (missed if side == "missed" else wrong)[m.id] += 1
                    example.setdefault((side, m.id), f"{words(doc, m)}  [{doc.name}]")
    for title, side, counter in (("missed gold mentions", "missed", missed), ("false positives", "wrong", wrong)):
        print(f"\n{title}: {sum(counter.values())} mentions of {len(counter)} terms the other side's ids lack; top:")
        for term_id, n in counter.most_common(count):
            name = lexicon.terms[term_id].name if term_id in lexicon.terms else "(no such term in the lexicon)"
            print(f"  {n:4}  {term_id} {name[:38]:<38}  e.g. '{example[(side, term_id)]}'")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--errors", type=int, default=0, help="print the N most frequent misses and false positives")
    args = parser.parse_args()
    if not (args.path / "Annotations_BioC").is_dir():
        note = f"no corpus at {args.path}: give a checkout of azankl/phenotypeCR_eval or set AMG_PHENOTYPE_CORPUS"
        print(json.dumps({"skipped": note}))  # one line, read by benchmarks/all.py
        return
    started = time.perf_counter()
    lexicon, docs = hpo_lexicon(), read_corpus(args.path, GOLD)
    second = {d.name: d for d in read_corpus(args.path, SECOND)}
    index, related = spotter_index(lexicon), related_in(lexicon)
    ids = [m.id for d in docs for m in d.mentions]
    figures: dict = {
        "n_documents": len(docs),
        "n_gold_mentions": len(ids),
        "n_gold_terms": len(set(ids)),
        "gold_mentions_not_in_lexicon": sum(i not in lexicon.terms for i in ids),
        "unlinked_spans_left_out": sum(len(d.unlinked) for d in docs),
        "load_s": round(time.perf_counter() - started, 1),
    }
    systems = {"recogniser": lambda t: recogniser(t, lexicon), "spotter_emulated": lambda t: spotter(t, index)}
    runs = {}
    for name, system in systems.items():
        started = time.perf_counter()
        runs[name] = [(d, predict(d, system)) for d in docs]
        figures[f"{name}_ms_per_document"] = round((time.perf_counter() - started) * 1000 / len(docs), 1)
        figures.update({f"{name}_{k}": v for k, v in score(runs[name], related).items()})
        figures[f"{name}_predictions_on_unlinked_spans"] = sum(len(p) - len(counted(d, p)) for d, p in runs[name])
    shared = [d for d in docs if d.name in second and second[d.name].mentions]
    names = {d.name for d in shared}
    human = score([(d, second[d.name].mentions) for d in shared], related)
    figures.update({"human_documents": len(shared), **{f"human_{k}": v for k, v in human.items()}})
    for name in systems:
        figures.update(
            {
                f"{name}_on_human_documents_{k}": v
                for k, v in score([(d, p) for d, p in runs[name] if d.name in names], related).items()
            }
        )
    if args.errors:
        errors(runs["recogniser"], lexicon, args.errors)

    def cells(prefix: str) -> str:
        return "   ".join(
            " ".join(f"{figures[f'{prefix}_{part}_{m}']:.3f}" for m in ("precision", "recall", "f1"))
            for part in ("mention", "mention_lenient", "document_micro", "document_macro")
        )

    labels = {
        "recogniser": "today's recogniser (tools/phenotypes)",
        "spotter_emulated": "vocabulary spotter before 83438e8 (emulated)",
    }
    parts = ("mentions", "lenient mentions", "documents micro", "documents macro")
    rows = [("", "".join(f"{part:<20}" for part in parts)), ("", "P     R     F1      " * 4)]
    rows += [(labels[n], cells(n)) for n in systems]
    rows += [(f"{labels[n]}, the {len(shared)} documents", cells(f"{n}_on_human_documents")) for n in systems]
    rows += [(f"{SECOND} against {GOLD} (the {len(shared)} documents she annotated, in part)", cells("human"))]
    rows += [
        (
            "gold",
            f"{len(docs)} documents by {GOLD}, {len(ids)} mentions with an HPO id "
            f"({figures['gold_mentions_not_in_lexicon']} of an id the lexicon lacks), "
            f"{figures['unlinked_spans_left_out']} spans without one left out",
        )
    ]
    emit("Phenotype recognition on case reports (azankl/phenotypeCR_eval, present findings)", rows, figures)


if __name__ == "__main__":
    main()
