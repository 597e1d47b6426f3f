"""The bare model as a diagnostician (MedRAG's naive baseline): the case and the dataset's candidate diagnoses, one
answer, no graph and no records."""

from __future__ import annotations

import re

from amg.tools.kg.schema import normalize_key

PROMPT = """A patient's case:
{case}

Which one of these diagnoses is the most likely?
{candidates}

Answer with the diagnosis's name exactly as listed, and nothing else."""


def bare_model(case: str, candidates: list[str], llm) -> list[str]:
    """The candidates the model names, best first: the one it answers, then the rest in the listed order (the model
    ranks nothing else). An answer naming none of them puts none first."""
    listed = "\n".join(f"- {c}" for c in candidates)
    reply = llm.invoke([("user", PROMPT.format(case=case.strip(), candidates=listed))])
    chosen = named(str(getattr(reply, "content", reply)), candidates)
    return [chosen, *(c for c in candidates if c != chosen)] if chosen else list(candidates)


def named(reply: str, candidates: list[str]) -> str | None:
    """The candidate a reply names: its first line as a whole name, else the longest name it holds."""
    first = normalize_key(reply.strip().splitlines()[0]) if reply.strip() else ""
    by_key = {normalize_key(c): c for c in candidates}
    if first in by_key:
        return by_key[first]
    said = f" {normalize_key(reply)} "
    held = [c for key, c in by_key.items() if re.search(rf" {re.escape(key)} ", said)]
    return max(held, key=len) if held else None
