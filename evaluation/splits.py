"""The one rule for figures a reader can trust: every design choice and fitted map uses a dev set's *fit* part;
reported figures come from its disjoint *report* part, named with its n and the command that made it
(docs/benchmarks.md).

Each dev set's parts, fixed once and never moved:

- MMLU medical dev (301): sha1(id) even = fit (the confidence maps were fitted there), odd = report (154). Design
  choices before this rule looked at all 301 questions (docs/results.md says so beside each MMLU figure).
- PubMedQA dev (500): report = sha1(id) odd among questions 201-500 (155); fit = the rest (the first 200 chose the
  traverser's rules, sha1-even fitted the maps).
- SciFact train claims (809): report = odd ids after the first 200 odd ones (194); fit = even ids (tuning) and the
  first 200 odd ones (they compared the claim path's gates).
- DDXPlus and phenopacket dev cases, the long-form questions: even line = fit, odd line = report.
"""

from __future__ import annotations

import hashlib

SPLITS = ("fit", "report")
CHOSEN_ON_PUBMEDQA = 200  # PubMedQA dev questions the traverser's rules were chosen on (in file order)
CHOSEN_ON_SCIFACT = 200  # the odd-id SciFact claims the claim path's gates were compared on (in file order)


def _sha1_odd(item_id: str) -> bool:
    return int(hashlib.sha1(item_id.encode()).hexdigest(), 16) % 2 == 1


def split_of(dataset: str, items: list[dict]) -> list[str]:
    """Each item's part, "fit" or "report", in order (``dataset``: the file's name without its suffix)."""
    name = dataset.lower()
    if name.startswith("mmlu"):
        return ["report" if _sha1_odd(str(i["id"])) else "fit" for i in items]
    if name.startswith("pubmedqa"):
        return ["report" if n >= CHOSEN_ON_PUBMEDQA and _sha1_odd(str(i["id"])) else "fit" for n, i in enumerate(items)]
    if name.startswith("scifact"):
        out, odd_seen = [], 0
        for item in items:
            ident = str(item["id"])
            number = int(ident) if ident.isdigit() else sum(map(ord, ident))
            odd = number % 2 == 1
            out.append("report" if odd and odd_seen >= CHOSEN_ON_SCIFACT else "fit")
            odd_seen += odd
        return out
    return ["fit" if n % 2 == 0 else "report" for n in range(len(items))]


def select(dataset: str, items: list[dict], part: str | None) -> list[dict]:
    """The items of ``part`` ("fit", "report"; None or "all": every item), in order."""
    if part in (None, "all"):
        return list(items)
    if part not in SPLITS:
        raise ValueError(f"--split is fit, report or all (got {part!r})")
    return [item for item, side in zip(items, split_of(dataset, items)) if side == part]
