"""The refresh agent's re-read of a revised paper (queued by graphs/literature_sync.py).

The paper's revision is read from the local index and written on its Evidence node. Each relation
resting on it is checked against the revision: a finding whose sentence the revision still holds
(or, without a sentence, whose two ends it still names) stands, a history note saying so; a study
finding that is no longer stated is read again by the finding reader (agents/finding_reader), which
writes what the revision now says; whatever the revision no longer states, and was not read again
the same, is weakened with the reason (confidence 0, history kept, nothing deleted).
"""

from __future__ import annotations

from amg.agents.finding_reader.reader import FINDING_NAMES, learn_finding
from amg.graphs.context import Context
from amg.graphs.resources import Resources
from amg.tools.evidence.finder import pubmed_record
from amg.tools.kg.grounding import mentions
from amg.tools.kg.records import EvidenceProps, LearnedRelation
from amg.tools.kg.schema import normalize_key
from amg.tools.kg.store.rows import RestingRelation

POPULATION = " [studied in:"  # how a finding's description appends its population to its sentence


def still_stated(relation: RestingRelation, text: str) -> bool:
    """Whether ``text`` (the revised abstract) still states ``relation``: its sentence, else both ends named."""
    sentence = (relation.get("description") or "").split(POPULATION, 1)[0].strip()
    if sentence:
        return f" {normalize_key(sentence)} " in f" {normalize_key(text)} "
    ends = ([relation["source"], *relation["source_aliases"]], [relation["target"], *relation["target_aliases"]])
    return all(mentions(text, names) for names in ends)


def reread_paper(paper: EvidenceProps, res: Resources, ctx: Context) -> dict[str, object]:
    """Re-read one queued paper (its Evidence properties); a result line for the refresh summary."""
    pmid = paper.get("pmid") or paper["id"].removeprefix("pmid:")
    index = res.literature
    found = index.fetch([pmid]) if index is not None else []
    relations = [r for r in res.store.resting_on([paper["id"]]) if r["status"] != "weakened"]
    if not found:  # deleted meanwhile (its deletion weakens what rests on it) or no index to read it from
        res.store.reread_done(paper["id"], [], [])
        return {"paper": paper["id"], "status": "not re-read", "reason": "the revision is not in the local index"}
    article = found[0]
    record, _ = pubmed_record(article)
    res.store.revise_evidence(record.as_props())
    text = article.conclusion_first()
    stated = [r for r in relations if still_stated(r, text)]
    unstated = [r for r in relations if not still_stated(r, text)]
    learned: list[LearnedRelation] = []
    usage = {"llm_calls": 0, "tokens": 0}
    if any(r["type"] in FINDING_NAMES for r in unstated):
        props = record.as_props()
        ends = {(r["s"], r["source"], r["t"], r["target"]) for r in unstated if r["type"] in FINDING_NAMES}
        for source_key, source, target_key, target in sorted(ends):
            done = learn_finding(
                f"What did this study find about {source} and {target}?",
                [{"key": source_key, "name": source}, {"key": target_key, "name": target}],
                paper=props,
                text=text,
                reader=res.reader(ctx.keep_score),
                store=res.store,
            )
            learned += done["new_relations"]
            usage = {
                "llm_calls": usage["llm_calls"] + done.get("llm_calls", 0),
                "tokens": usage["tokens"] + done.get("tokens", 0),
            }
    again = {(normalize_key(r["source"]), r["type"], normalize_key(r["target"])) for r in learned}
    gone = [r for r in unstated if (r["s"], r["type"], r["t"]) not in again]
    res.store.reread_done(paper["id"], stated, gone)
    return {
        "paper": paper["id"],
        "status": "re-read",
        "title": record.title,
        "relations": len(relations),
        "still_stated": len(stated),
        "read_again": len(unstated) - len(gone),
        "weakened": len(gone),
        "learned": learned,
        **usage,
    }
