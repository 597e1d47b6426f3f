"""Whether the model keeps giving the same open answer: a few short answers sampled to the bare question, and how
close the answer printed is to them.

A small model that knows the answer says it again when asked again at some temperature; one that guesses names
something else each time (self-consistency, Wang et al. 2023; sampled agreement as a confidence, Manakul et al.
2023). The answer and each sample are compared as MiniLM vectors of what they say *beyond the question's own
words*: short answers restate the question ("The vocal fold on the injured side is ..."), and those shared words
would make any two answers look alike. The mean cosine is a signal the open-answer map may weigh
(benchmarks/calibration.py --kind open); it never changes the answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from amg.prompts import load
from amg.tools.llm.conversation import request, talk
from amg.tools.llm.structured import Usage

# the agreement's AUROC on 151 open MMLU answers of the 1.5B: 0.715 with one sample, 0.773 with two, 0.804 three
SAMPLES = 3
SAMPLE_TOKENS = 20  # "at most ten words" fits; a sample cut short still says what it names
SAMPLE_TEMPERATURE = 0.8
SEED = 1000  # sample s is drawn with seed SEED + s: the same question gets the same samples on the same model
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*")


def sampled_answers(llm, question: str, *, usage: Usage, k: int = SAMPLES) -> list[str]:
    """``k`` short answers to ``question`` asked alone, sampled at ``SAMPLE_TEMPERATURE`` (empty ones left out)."""
    text = request([], question, options={}, text=load("short_answer").format())
    said = [
        talk(
            llm.bind(temperature=SAMPLE_TEMPERATURE, seed=SEED + s),
            [],
            text=text,
            usage=usage,
            max_tokens=SAMPLE_TOKENS,
        )[0]
        for s in range(k)
    ]
    return [s.strip() for s in said if s.strip()]


def beyond_question(text: str, question: str) -> str:
    """``text``'s words that are not the question's (case folded), in order; "." when none are left."""
    asked = {w.lower() for w in _WORD.findall(question)}
    return " ".join(w for w in _WORD.findall(text) if w.lower() not in asked) or "."


def agreement(
    answer: str, samples: list[str], *, question: str, embed: Callable[[list[str]], list[list[float]]]
) -> float | None:
    """The mean cosine between ``answer`` and each sample, both without the question's words (``embed`` returns
    unit vectors); None without samples or an answer."""
    if not samples or not answer.strip():
        return None
    vectors = embed([beyond_question(t, question) for t in [answer, *samples]])
    first = vectors[0]
    cosines = [sum(a * b for a, b in zip(first, v)) for v in vectors[1:]]
    return round(sum(cosines) / len(cosines), 4)
