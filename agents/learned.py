"""What an agent that writes what it read to the graph reports (the relation scorer, the finding reader, a claim's
findings): the relations it learned, and beside them what it refused and why, what it weakened, what went wrong,
and its model use."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from amg.tools.kg.records import LearnedRelation, Rescored


class Learned(TypedDict):
    new_relations: list[LearnedRelation]
    refused: NotRequired[list[str]]
    weakened: NotRequired[list[Rescored]]
    degradations: NotRequired[list[str]]
    llm_calls: NotRequired[int]
    tokens: NotRequired[int]
