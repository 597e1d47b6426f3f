"""SciFact's official metrics (Wadden et al. 2020) and the claim-level verdict figures, on its submission format.

Predictions, per claim id: ``{doc_id: {"sentences": [i, ...], "label": "SUPPORT" | "CONTRADICT"}}`` (an abstract
predicted to hold no evidence has no entry; one labelled anything else counts nothing). Gold, per claim id:
``{doc_id: [{"sentences": [...], "label": ...}, ...]}``: each entry one rationale, a set of sentences that together
settle the claim; an abstract's rationales share its label.

- Abstract level, precision over predicted abstracts and recall over gold ones: Label-Only counts an abstract
  whose label is the gold one; Label+Rationale also needs the first ``MAX_ABSTRACT_SENTENCES`` predicted sentences
  to hold every sentence of at least one gold rationale.
- Sentence level, precision over predicted sentences and recall over gold rationale sentences: Selection-Only
  counts a predicted sentence that is in a gold rationale all of whose sentences are predicted (a rationale only
  partly predicted earns nothing); Selection+Label also needs the abstract's label to be the gold one.
"""

from __future__ import annotations

from collections import Counter

from amg.evaluation.metrics import accuracy, macro_f1

MAX_ABSTRACT_SENTENCES = 3
LABELS = ("SUPPORT", "CONTRADICT")
VERDICTS = ("supported", "contradicted", "not enough evidence")


def _f1(correct: int, predicted: int, relevant: int) -> dict:
    precision = correct / predicted if predicted else 0.0
    recall = correct / relevant if relevant else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4)}


def _rationales(entries: list[dict]) -> list[set[int]]:
    return [set(entry["sentences"]) for entry in entries]


def _complete(predicted: set[int], rationales: list[set[int]]) -> set[int]:
    """The predicted sentences that belong to a gold rationale predicted in full."""
    return {i for i in predicted if any(i in r and r <= predicted for r in rationales)}


def scifact_metrics(predictions: dict[str, dict], gold: dict[str, dict]) -> dict:
    """The four official figures (each precision, recall, F1) over the claims of ``gold`` (claim id → evidence)."""
    counts: Counter = Counter()
    for claim, evidence in gold.items():
        evidence = {str(d): entries for d, entries in evidence.items()}
        counts["abstracts_relevant"] += len(evidence)
        counts["sentences_relevant"] += sum(len(entry["sentences"]) for e in evidence.values() for entry in e)
        for doc, predicted in (predictions.get(claim) or {}).items():
            if predicted.get("label") not in LABELS:
                continue
            sentences = [int(i) for i in predicted.get("sentences") or []]
            counts["abstracts_predicted"] += 1
            counts["sentences_predicted"] += len(sentences)
            entries = evidence.get(str(doc))
            if not entries:
                continue
            rationales, right_label = _rationales(entries), predicted["label"] == entries[0]["label"]
            if right_label:
                counts["label_only"] += 1
                counts["label_rationale"] += bool(_complete(set(sentences[:MAX_ABSTRACT_SENTENCES]), rationales))
            selected = len(_complete(set(sentences), rationales))
            counts["selection"] += selected
            counts["selection_label"] += selected if right_label else 0
    abstracts = (counts["abstracts_predicted"], counts["abstracts_relevant"])
    sentence_counts = (counts["sentences_predicted"], counts["sentences_relevant"])
    return {
        "abstract_label_only_f1": _f1(counts["label_only"], *abstracts),
        "abstract_label_rationale_f1": _f1(counts["label_rationale"], *abstracts),
        "sentence_selection_f1": _f1(counts["selection"], *sentence_counts),
        "sentence_selection_label_f1": _f1(counts["selection_label"], *sentence_counts),
    }


def gold_verdict(evidence: dict) -> str:
    """The claim-level verdict of SciFact's evidence: supported, contradicted, mixed (abstracts disagree) or not
    enough evidence (no abstract holds any)."""
    labels = {entry["label"] for entries in evidence.values() for entry in entries}
    if not labels:
        return "not enough evidence"
    if labels == {"SUPPORT"}:
        return "supported"
    return "contradicted" if labels == {"CONTRADICT"} else "mixed"


def verdict_figures(gold: list[str], predicted: list[str | None]) -> dict:
    """Claim-level accuracy and macro-F1 over the gold verdicts (a "mixed" verdict is right only where gold is)."""
    return {
        "verdict_accuracy": round(accuracy(gold, predicted), 4),
        "verdict_macro_f1": round(macro_f1(gold, predicted), 4),
    }


def retrieval_recall(gold_docs: list[list[str]], retrieved: list[list[str]], k: int = 3) -> float | None:
    """Share of claims with evidence whose top ``k`` retrieved abstracts hold a gold one (None: no such claim)."""
    judged = [(set(map(str, g)), [str(r) for r in found[:k]]) for g, found in zip(gold_docs, retrieved) if g]
    return round(sum(bool(g & set(found)) for g, found in judged) / len(judged), 4) if judged else None
