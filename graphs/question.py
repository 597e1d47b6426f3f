"""Turn raw input (chat messages or question + options) into a validated question."""

from __future__ import annotations

import re

from langchain_core.messages import AIMessage, HumanMessage

MAX_QUESTION_CHARS = 4000
MAX_OPTIONS = 10
_OPTION_LINE = re.compile(r"^\s*\(?([A-Ja-j])[.):]\s+(.+?)\s*$")


def split_options(text: str) -> tuple[str, dict[str, str]]:
    """Options written as lines "A. ...", "B) ..." inside a chat message, and the rest."""
    lines, options = [], {}
    for line in text.splitlines():
        match = _OPTION_LINE.match(line)
        if match:
            options[match.group(1).upper()] = match.group(2)
        else:
            lines.append(line)
    if len(options) < 2:
        return text, {}
    return "\n".join(lines).strip(), options


def _text(message) -> str:
    content = message.content
    if isinstance(content, list):  # multimodal content blocks: keep the text parts
        content = " ".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def prepare_question(state: dict) -> tuple[str, dict[str, str], list[str], str | None]:
    """(question, options, notices, problem); ``problem`` is a readable reason to stop."""
    messages = state.get("messages") or []
    options = {str(k).strip().upper(): str(v).strip() for k, v in (state.get("options") or {}).items()}
    notices: list[str] = []
    if messages and isinstance(messages[-1], HumanMessage):
        question, inline = split_options(_text(messages[-1]))
        options = options or inline
        earlier = [m for m in messages[:-1] if isinstance(m, (HumanMessage, AIMessage))]
        if len(earlier) >= 2 and question.strip():
            question += f"\n(Previous question: {_text(earlier[-2])[:500]}\nPrevious answer: {_text(earlier[-1])[:500]})"
    else:
        question = str(state.get("question") or "")
    question = question.strip()
    bad_keys = [k for k in options if not re.fullmatch(r"[A-J]", k)]
    if bad_keys:
        return question, {}, notices, f"Option keys must be letters A-J; got {', '.join(bad_keys)}."
    if len(options) > MAX_OPTIONS or any(not v for v in options.values()):
        return question, {}, notices, "Options must be at most 10, each with text."
    if not question:
        if options:
            return "", options, notices, "Options were given without a question; please add the question."
        return "", {}, notices, "Please ask a medical question: the input was empty."
    if len(question) > MAX_QUESTION_CHARS:
        notices.append(f"The question was {len(question):,} characters; only the first {MAX_QUESTION_CHARS:,} were used.")
        question = question[:MAX_QUESTION_CHARS]
    return question, dict(sorted(options.items())), notices, None
