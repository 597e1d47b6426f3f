"""How likely each sentence of an abstract is one that settles a claim (a rationale sentence, in SciFact's terms).

Closeness to the claim alone finds the settling sentence about half the time: the sentence that restates the
claim's topic is often the abstract's background or aim ("We investigated whether …"), and its finding comes later,
with numbers. ``settling`` weighs closeness with what marks a finding in any abstract: how far the sentence is
behind the abstract's closest one, where it stands in the abstract, whether it is the closest, how many of the
claim's words it states, digits and statistics, its length, a conclusion's opening words ("These results …", "We
found …") and an aim's or background's ("To determine …", "Little is known …", a question). The weights are a
logistic regression fitted on the gold abstracts of SciFact's tune claims (even ids) by
``python -m benchmarks.claim_rationale``, which reports the held-out claims (odd ids); the closeness is MiniLM's
cosine, as the claim search computes it (another embedding model has its own scale).

The stance step shows the model the ``SHOWN`` sentences likeliest to settle the claim and quotes as the rationale
the likeliest, with the next one only when it is itself likelier than not to settle it (``quoted``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from amg.agents.claim_checker.from_graph import stemmed_words
from amg.agents.claim_checker.paper import Sentence, ShownSentence

FEATURES = (
    "closeness",  # cosine of the sentence and the claim
    "behind_closest",  # its closeness minus the abstract's closest sentence's (0 for the closest)
    "position",  # its place in the abstract, 0 first, 1 last
    "closest",  # 1 for the abstract's closest sentence
    "claim_words",  # share of the claim's content words (stemmed) the sentence states
    "digits",  # 1 when it holds a digit
    "statistics",  # 1 when it states a p-value, a confidence interval or a ratio
    "log_words",  # log(1 + its number of words)
    "conclusion",  # 1 when it opens as a conclusion or a finding does
    "aim",  # 1 when it opens as an aim, a method or background does, or asks a question
)
# Fitted by benchmarks/claim_rationale.py on the tune claims' gold abstracts (unscaled: a weight per unit of each
# feature above), with the intercept.
WEIGHTS = {
    "closeness": -1.6628,
    "behind_closest": 4.146,
    "position": 1.8496,
    "closest": 0.7517,
    "claim_words": 2.9283,
    "digits": 0.2839,
    "statistics": 0.6021,
    "log_words": 0.8029,
    "conclusion": 0.2836,
    "aim": -1.8832,
}
INTERCEPT = -4.4436
SHOWN = 5  # sentences shown to the model: the five likeliest hold 0.90 of the gold rationale sentences (closest: 0.81)
QUOTED = 2  # at most this many quoted as a paper's rationale
LIKELY = 0.5  # a second sentence is quoted only when it is likelier than not to settle the claim

_CONCLUSION = re.compile(
    r"\s*(in conclusion|conclusions?\b|in summary|these (results|findings|data|observations)|our (results|findings|"
    r"data)|we (found|show|demonstrate|report|conclude)|taken together|together,|collectively|thus,|therefore,|"
    r"overall,)",
    re.I,
)
_AIM = re.compile(
    r"\s*(to (determine|investigate|assess|examine|evaluate|test|explore|compare)|we (aimed|sought|investigated|"
    r"examined|hypothesi[sz]ed|asked|studied|assessed|evaluated)|the (aim|objective|purpose|goal)|(objective|"
    r"background|purpose|aims?|methods?|design|setting|participants)\b|however, (it|the|little)|little is known|"
    r"it (is|remains) (unknown|unclear))",
    re.I,
)
_STATISTICS = re.compile(
    r"(\bp\s*[<=>≤]|95\s*%|\bci\b|odds ratio|hazard ratio|relative risk|\b(or|hr|rr)\b\s*[=:,]?\s*\d)", re.I
)


def features(
    claim: str, sentences: Sequence[Sentence], *, closeness: list[float], length: int | None = None
) -> list[list[float]]:
    """One row of ``FEATURES`` per sentence of ``sentences`` ([{n, text}], numbered as in the abstract), whose
    cosines with ``claim`` are ``closeness``; ``length``: the abstract's number of sentences (None when only some
    are at hand, as offline: the last numbered one then counts as the last)."""
    if not sentences:
        return []
    last = max((length or 0) - 1, *(s["n"] for s in sentences), 1)
    best = max(closeness)
    asked = stemmed_words(claim)
    rows = []
    for sentence, close in zip(sentences, closeness):
        text = sentence["text"]
        rows.append(
            [
                close,
                close - best,
                sentence["n"] / last,
                float(close == best),
                len(asked & stemmed_words(text)) / max(len(asked), 1),
                float(any(c.isdigit() for c in text)),
                float(bool(_STATISTICS.search(text))),
                math.log(1 + len(text.split())),
                float(bool(_CONCLUSION.match(text))),
                float(bool(_AIM.match(text)) or text.rstrip().endswith("?")),
            ]
        )
    return rows


def settling(
    claim: str,
    sentences: Sequence[Sentence],
    *,
    closeness: list[float],
    length: int | None = None,
    weights: dict[str, float] | None = None,
    intercept: float = INTERCEPT,
) -> list[float]:
    """Per sentence of ``sentences``, the probability that it settles ``claim`` (see ``features``), by ``WEIGHTS``
    and ``INTERCEPT`` unless others are given (a refit weighed beside them)."""
    weights = weights or WEIGHTS
    w = [weights[name] for name in FEATURES]
    return [
        1 / (1 + math.exp(-(intercept + sum(a * x for a, x in zip(w, row)))))
        for row in features(claim, sentences, closeness=closeness, length=length)
    ]


def quoted(shown: Sequence[ShownSentence], limit: int = QUOTED, likely: float = LIKELY) -> list[int]:
    """The numbers of the sentences of ``shown`` ([{n, settles}]) quoted as a paper's rationale, in the abstract's
    order: the likeliest to settle the claim, and up to ``limit`` - 1 more that are each at least ``likely`` to."""
    ranked = sorted(shown, key=lambda s: -s["settles"])
    return sorted(s["n"] for n, s in enumerate(ranked[:limit]) if n == 0 or s["settles"] >= likely)
