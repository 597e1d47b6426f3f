"""The model that reads evidence into the graph, and what its readings are worth."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

from amg.tools.kg.schema import learned_confidence


@dataclass(frozen=True)
class Reader:
    """The chat model that reads evidence (``llm``, served as ``model_name``), its measured extraction precision
    (``reliability``: tools/llm/confidence_maps.py), and the 1-10 score under which a reading is not kept."""

    llm: object
    model_name: str
    _: KW_ONLY
    reliability: float = 1.0
    keep_score: int = 4

    def confidence(self, score: float) -> float:
        """What a relation it read and scored ``score`` is worth."""
        return learned_confidence(score, self.reliability)
