"""What a question or a claim must be before anything starts for it: text that shows something, a claim of one
statement in English. Imports nothing heavy, so a command refuses bad input at once (graphs/question.py reads a
question with the same rules inside the graph)."""

from __future__ import annotations

import unicodedata

from amg.tools.claim_wording import MAX_CLAIM_WORDS, checked_claim, other_language

MAX_INPUT_CHARS = 100_000  # more than this is no question: refused unread (4,000 are read; graphs/question.py)
EMPTY_QUESTION = "Please ask a medical question: the input was empty."
CLAIM_EMPTY = "Please state a claim to check: the input was empty."


def visible(text: str) -> bool:
    """Whether ``text`` shows anything: not only spaces, controls and zero-width or format characters."""
    return any(unicodedata.category(c)[0] not in "CZ" for c in text)


def question_problem(text: str) -> str | None:
    """Why a question cannot be asked at all (empty, or far too long to be one); None when it can."""
    if not visible(text):
        return EMPTY_QUESTION
    if len(text) > MAX_INPUT_CHARS:
        return f"The input is {len(text):,} characters; a question is at most {MAX_INPUT_CHARS:,}."
    return None


def claim_to_check(said: str, asked: bool) -> tuple[str, str | None]:
    """(the claim a message states, a readable reason it cannot be checked). ``asked``: by `amg check`."""
    if len(said) > MAX_INPUT_CHARS:
        return "", f"The input is {len(said):,} characters; a claim is one statement."
    claim = checked_claim(said)
    words = len(claim.split())
    if not visible(claim):
        return "", CLAIM_EMPTY
    if words > MAX_CLAIM_WORDS:
        return claim, (
            f"A claim to check is one statement of at most {MAX_CLAIM_WORDS} words; this one has {words:,}: "
            "state its main point."
        )
    language = other_language(claim)
    if language:
        return claim, (
            f"AMG checks claims in English (its literature index and model read English); this claim reads as "
            f"{language}."
        )
    return claim, None
