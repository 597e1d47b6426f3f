"""The answer's lines: how the model is asked for its answer and how its reply is read.

The answer is the last turn of the question's conversation, in a few "Key: value" lines
(Option or Answer, Confidence, Citations). Lines cost a small local model nothing to
write, where a JSON tool call meant grammar-constrained decoding at half speed plus
re-reading the tool schema. A reply without a usable answer gets one repair turn; then the
answer degrades. An open answer carries what its own tokens say of how sure the model was
(agents/answer_synthesizer/self_check.py).
"""

from __future__ import annotations

import re
from dataclasses import KW_ONLY, dataclass, field

from amg.agents.answer_synthesizer.self_check import answer_likelihood, answer_token_probabilities, token_signals
from amg.prompts import load
from amg.tools.llm.confidence_maps import letter_probabilities
from amg.tools.llm.conversation import TOP_LOGPROBS, Turn, request, talk_scored
from amg.tools.llm.structured import Usage

ANSWER_TOKENS = 160
_FIELD = re.compile(r"^[\W_]*(option|answer|confidence|citations?)[\W_]*?\s*[:=]\s*(.*)$", re.IGNORECASE)
# the verdicts listed, as the answer format names them: copied, it answers nothing
_LISTED = re.compile(r"^\W*(?:one word:\s*)?(?:yes|no|maybe)(?:\W+(?:or\s+)?(?:yes|no|maybe))+\W*$", re.IGNORECASE)
# a small model may write every field on the answer's line: "Answer: ... . Confidence: 0.68; Citations: [1]"
_RUN_ON = re.compile(r"[;,]?[ \t]+(?=(?:confidence|citations?)[ \t]*:)", re.IGNORECASE)


@dataclass
class Reply:
    """What the model's answer lines say."""

    answer: str
    option: str | None
    _: KW_ONLY
    confidence: float
    citations: list[int] = field(default_factory=list)
    likelihood: float | None = None  # an open answer's: its tokens' geometric mean probability
    tokens: dict[str, float] = field(default_factory=dict)  # an open answer's first and least likely token (p_*)


def verdicts(options: dict[str, str]) -> dict[str, str] | None:
    """For options that are verdicts (yes / no / maybe), each word (upper case) -> its letter; else None."""
    words = {text.strip().strip(".").upper(): letter for letter, text in options.items()}
    return words if options and {"YES", "NO"} <= set(words) <= {"YES", "NO", "MAYBE"} else None


def answer_line(options: dict[str, str]) -> str:
    """The first answer line; listing the letters here ("A, B, C or D") biased small models towards one of them.

    Verdict options are answered by their word: read as letters, a small model's yes / no / maybe probabilities
    stay near uniform and lean on a letter. Asked for "<yes, no, maybe>", it copies the list ("Answer: <yes, no,
    maybe>"); "<one word: ...>" is not copied, and "<one word>" alone leans on "no"."""
    words = [w.lower() for w in verdicts(options) or {}]
    if words:
        return f"Answer: <one word: {', '.join(words[:-1])} or {words[-1]}>"
    if options:
        return "Option: <the letter of the correct option>"
    return "Answer: <the answer in one or two sentences of your own>"  # without "of your own" it copied the evidence


def read_confidence(value: str) -> float:
    """ "0.7", "70%", "7/10" and "7" all mean 0.7; missing means 0.5."""
    number = re.search(r"\d+(?:\.\d+)?", value)
    if not number:
        return 0.5
    x = float(number.group())
    if "%" in value[number.end() : number.end() + 2] or x > 10:
        x /= 100
    elif x > 1:
        x /= 10
    return min(max(x, 0.0), 1.0)


def read_reply(text: str, options: dict[str, str]) -> Reply | None:
    """The answer in ``text``, or None when it names no option (multiple choice) or no answer."""
    fields: dict[str, str] = {}
    for line in _RUN_ON.sub("\n", text).splitlines():
        match = _FIELD.match(line.strip())
        if match:
            fields.setdefault(match.group(1).lower().rstrip("s"), match.group(2).strip().strip("*`<>").strip())
    answer = fields.get("answer", "")
    option = pick_option(fields.get("option") or answer, text, options) if options else None
    if (options and option is None) or (not options and not answer):
        return None
    cited = re.findall(r"\d+", fields.get("citation", "")) + re.findall(r"\[(\d+)\]", answer)
    return Reply(
        answer,
        option,
        confidence=read_confidence(fields.get("confidence", "")),
        citations=[int(n) for n in dict.fromkeys(cited)],
    )


def ask_answer(
    llm, dialogue: list[Turn], *, question: str, options: dict[str, str], usage: Usage, preface: str = ""
) -> tuple[Reply | None, list[Turn], dict[str, float] | None]:
    """The model's answer after ``dialogue`` (``preface`` goes before the request, e.g. evidence),
    and for multiple choice its probabilities over the letters (None when the endpoint gives none).

    One repair turn when the reply is unusable; None when that fails too.
    """
    ask_text = load("answer").format(answer_line=answer_line(options))
    text = request(dialogue, question, options=options, text=preface + ask_text)
    for _ in range(2):
        said, dialogue, logprobs = talk_scored(
            llm, dialogue, text=text, usage=usage, max_tokens=ANSWER_TOKENS, top_logprobs=TOP_LOGPROBS if options else 1
        )
        reply = read_reply(said, options)
        if reply is not None and not options:
            reply.likelihood = answer_likelihood(logprobs, said, reply.answer)
            reply.tokens = token_signals(answer_token_probabilities(logprobs, said, reply.answer))
        if reply is not None or not said:
            probs = letter_probabilities(logprobs, list(options), verdicts(options)) if reply and options else None
            return reply, dialogue, probs
        text = load("answer_repair").format() + ask_text
    return None, dialogue, None


def pick_option(option: str | None, answer: str, options: dict[str, str]) -> str | None:
    """The option letter the model meant, or None when it named none."""
    words = verdicts(options)
    if words:  # answered by its word ("yes, because ..."), or still by its letter: the first word decides
        if _LISTED.match(option or ""):
            return None  # the format's list of verdicts copied ("yes, no, maybe"): no answer named
        first = re.match(r"\W*(\w+)", option or "")
        word = first.group(1).upper() if first else ""
        return words.get(word) or (word if word in options else None)
    letter = (option or "").strip().strip(".()").upper()[:1]
    if letter in options:
        return letter
    match = re.search(r"\b(?:answer|option)\s*(?:is\s*)?:?\s*\(?([A-J])\b", answer, re.IGNORECASE)
    if match and match.group(1).upper() in options:
        return match.group(1).upper()
    lowered = answer.lower()
    hits = [k for k, text in options.items() if text and text.lower() in lowered]
    return hits[0] if len(hits) == 1 else None
