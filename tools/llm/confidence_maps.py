"""From the model's own token probabilities to an answer confidence that means what it says.

1. ``letter_probabilities``: where the reply names its option, the top log-probabilities of
   that token give a distribution over the question's letters (" B" and "B" count as B), or over
   its words when the options are verdicts (yes / no / maybe: agents/answer_synthesizer/answer_lines.py).
2. ``debias``: small models prefer some letters whatever the question; dividing by the
   model's letter prior (its mean letter distribution on shuffled questions, where every
   position is equally likely to be right) removes that lean at no extra model call.
3. ``CalibrationMap``: a Platt map fitted on one half of the dev set
   (benchmarks/calibration.py), from the chosen option's probability and the graph's
   support to the probability of being right; shipped per model and answering method (closed-book,
   cot, rag or kg: each prompt has its own letter lean) as a small versioned JSON file that records how it was made.
"""

from __future__ import annotations

import json
import math
from dataclasses import KW_ONLY, dataclass, field
from functools import cache
from pathlib import Path

from amg.tools.llm.logprobs import TokenLogprob

MAPS = Path(__file__).parent / "maps"
RELIABILITY = MAPS / "extraction_reliability.json"
DEFAULT_RELIABILITY = 0.6  # a model whose extraction precision has not been measured
_EPS = 1e-4


def letter_probabilities(
    logprobs: list[TokenLogprob] | None, letters: list[str], words: dict[str, str] | None = None
) -> dict[str, float] | None:
    """Distribution over ``letters`` at the first generated token that is one of them, or None.

    With ``words`` (upper-case word -> letter: {"YES": "A", "NO": "B", "MAYBE": "C"}) the option is
    named by its word, not its letter; a token that starts a word only ("MAY") counts for it."""
    for step in logprobs or []:
        if _letter(step.get("token", ""), letters, words) is None:
            continue
        mass = {letter: 0.0 for letter in letters}
        for alternative in step.get("top_logprobs") or [step]:
            letter = _letter(alternative.get("token", ""), letters, words)
            if letter is not None:
                mass[letter] += math.exp(float(alternative["logprob"]))
        total = sum(mass.values())
        return {k: max(v / total, _EPS) for k, v in mass.items()} if total > 0 else None
    return None


def _letter(token: str, letters: list[str], words: dict[str, str] | None = None) -> str | None:
    text = token.strip().strip("()*.:`,").upper()
    if words is None:
        return text if text in letters else None
    starts = [letter for word, letter in words.items() if text and word.startswith(text)]
    return words.get(text) or (starts[0] if len(starts) == 1 else None)


def debias(probs: dict[str, float], prior: dict[str, float] | None) -> dict[str, float]:
    """``probs`` divided by the model's letter prior (by position), renormalised."""
    if not prior:
        return dict(probs)
    uniform = 1 / len(probs)
    raw = {k: p / max(prior.get(k, uniform), _EPS) * uniform for k, p in probs.items()}
    total = sum(raw.values())
    return {k: v / total for k, v in raw.items()}


def _or_half(p: float | None) -> float:
    return 0.5 if p is None else float(p)


def logit(p: float) -> float:
    p = min(max(p, _EPS), 1 - _EPS)
    return math.log(p / (1 - p))


@dataclass
class CalibrationMap:
    """P(correct) = sigmoid(a * logit(p_option) + b * support + c), with the letter prior it assumes.

    An open answer's map may weigh more signals (``weights``, by name: the logit of a probability named ``p_*``,
    any other as it is); the probability ``a`` weighs is then ``about["feature"]``."""

    a: float = 1.0
    b: float = 0.0
    _: KW_ONLY
    c: float = 0.0
    letter_prior: dict[str, float] = field(default_factory=dict)
    about: dict = field(default_factory=dict)  # model, data, split, n, date, figures
    weights: dict[str, float] = field(default_factory=dict)

    def __call__(self, p_option: float, support: float) -> float:
        z = self.a * logit(p_option) + self.b * support + self.c
        return 1 / (1 + math.exp(-z))

    def score(self, signals: dict[str, float | None], support: float) -> float:
        """P(correct) from named signals (a missing probability counts as 0.5, a missing flag as 0)."""
        feature = self.about.get("feature") or "p_true"
        z = self.a * logit(_or_half(signals.get(feature))) + self.b * support + self.c
        for name, weight in self.weights.items():
            value = signals.get(name)
            z += weight * (logit(_or_half(value)) if name.startswith("p_") else float(value or 0.0))
        return 1 / (1 + math.exp(-z))

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            json.dumps(
                {
                    "version": 1,
                    "a": self.a,
                    "b": self.b,
                    "c": self.c,
                    "letter_prior": self.letter_prior,
                    "about": self.about,
                    **({"weights": self.weights} if self.weights else {}),
                },
                indent=2,
            )
            + "\n"
        )

    @classmethod
    def load(cls, path: Path) -> CalibrationMap:
        data = json.loads(path.read_text())
        if data.get("version") != 1:
            raise ValueError(f"{path}: unknown calibration map version {data.get('version')!r}")
        return cls(
            data["a"],
            data["b"],
            c=data["c"],
            letter_prior=data.get("letter_prior") or {},
            about=data.get("about") or {},
            weights=data.get("weights") or {},
        )


def map_path(model: str, method: str, kind: str = "exam") -> Path:
    """Where the map of ``model`` (its served name) answering ``kind`` questions by ``method`` is shipped.

    ``method``: a baseline, ``kg`` or ``kg-<evidence mode>``; ``kind``: "exam" (multiple choice) or
    "research" (yes / no / maybe on a study's claim), whose letters lean differently; "open" or "research-open",
    the same asked without options (tools/question_kinds.py ``confidence_kind``)."""
    return MAPS / (f"{model}.{method}.json" if kind == "exam" else f"{model}.{method}.{kind}.json")


@cache
def map_for(model: str, method: str, kind: str = "exam") -> CalibrationMap | None:
    """The shipped map of ``model`` answering ``kind`` questions by ``method`` (read once per process), or None
    if not measured: a map fitted on exam questions is never applied to research questions."""
    path = map_path(model, method, kind)
    return CalibrationMap.load(path) if path.exists() else None


@cache
def extraction_reliability(model: str) -> float:
    """The measured precision of ``model``'s relation extraction (benchmarks/extraction.py), or the default."""
    table = json.loads(RELIABILITY.read_text()) if RELIABILITY.exists() else {}
    return float((table.get(model) or {}).get("precision", DEFAULT_RELIABILITY))
