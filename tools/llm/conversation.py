"""One conversation with the model per question: each agent adds its turn.

The query parser opens it with the question, the reasoner adds the graph context and its
chain of thought, the answer synthesizer asks for the answer. Every call resends the whole
conversation, so a server that keeps what it has already read (llama.cpp's KV cache, vLLM
and OpenAI prefix caching) pays only for the new turn: on the embedded model the answer
call drops from ~4 s to about 1 s. Turns are plain dicts, so the conversation can live in
the graph state and its checkpoints.
"""

from __future__ import annotations

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from amg.prompts import load
from amg.tools.llm.logprobs import TokenLogprob
from amg.tools.llm.structured import SYSTEM, Usage

Turn = dict[str, str]  # {"role": "user" | "assistant", "content": ...}
TOP_LOGPROBS = 20  # alternatives per token, where a letter's or a verdict's probability is read


def format_options(options: dict[str, str]) -> str:
    return "".join(f"{letter}. {text}\n" for letter, text in options.items())


def request(dialogue: list[Turn], question: str, *, options: dict[str, str], text: str) -> str:
    """``text``, preceded by the question when it opens the conversation."""
    return (
        text if dialogue else load("question").format(question=question, options=format_options(options)) + "\n" + text
    )


def talk(
    llm: BaseChatModel, dialogue: list[Turn], *, text: str, usage: Usage, max_tokens: int | None = None
) -> tuple[str, list[Turn]]:
    """The model's reply to ``text`` after ``dialogue``, and the conversation with both turns added.

    When the endpoint rejects the request (e.g. it exceeds the context) the reply is "" and the
    conversation is returned unchanged, so the next agent can still go on from it.
    """
    said, dialogue, _ = talk_scored(llm, dialogue, text=text, usage=usage, max_tokens=max_tokens)
    return said, dialogue


def talk_scored(
    llm: BaseChatModel,
    dialogue: list[Turn],
    *,
    text: str,
    usage: Usage,
    max_tokens: int | None = None,
    top_logprobs: int = 0,
) -> tuple[str, list[Turn], list[TokenLogprob] | None]:
    """``talk``, plus the reply's token log-probabilities (OpenAI's ``logprobs.content``) when asked.

    An endpoint that refuses log-probabilities is asked again without them (the third value is then None).
    """
    turns = [*dialogue, {"role": "user", "content": text}]
    messages = [SystemMessage(SYSTEM)] + [
        HumanMessage(t["content"]) if t["role"] == "user" else AIMessage(t["content"]) for t in turns
    ]
    limits = {"max_tokens": max_tokens} if max_tokens else {}
    attempts = [{**limits, "logprobs": True, "top_logprobs": top_logprobs}] if top_logprobs else []
    for params in [*attempts, limits]:
        try:
            reply = (llm.bind(**params) if params else llm).invoke(messages)
            break
        except openai.BadRequestError as exc:
            if "logprob" not in str(exc).lower() or "logprobs" not in params:
                return "", list(dialogue), None
    else:
        return "", list(dialogue), None
    usage.add(reply)
    content = str(reply.content or "")
    logprobs = (reply.response_metadata.get("logprobs") or {}).get("content") if top_logprobs else None
    return content, [*turns, {"role": "assistant", "content": content}], logprobs
