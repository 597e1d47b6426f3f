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

from agents.structured import SYSTEM, Usage
from prompts import load

Turn = dict[str, str]  # {"role": "user" | "assistant", "content": ...}


def format_options(options: dict[str, str]) -> str:
    return "".join(f"{letter}. {text}\n" for letter, text in options.items())


def request(dialogue: list[Turn], question: str, options: dict[str, str], text: str) -> str:
    """``text``, preceded by the question when it opens the conversation."""
    return text if dialogue else load("question").format(question=question, options=format_options(options)) + "\n" + text


def talk(llm: BaseChatModel, dialogue: list[Turn], text: str, usage: Usage,
         max_tokens: int | None = None) -> tuple[str, list[Turn]]:  # fmt: skip
    """The model's reply to ``text`` after ``dialogue``, and the conversation with both turns added.

    When the endpoint rejects the request (e.g. it exceeds the context) the reply is "" and the
    conversation is returned unchanged, so the next agent can still go on from it.
    """
    turns = [*dialogue, {"role": "user", "content": text}]
    messages = [SystemMessage(SYSTEM)] + [
        HumanMessage(t["content"]) if t["role"] == "user" else AIMessage(t["content"]) for t in turns
    ]  # fmt: skip
    model = llm.bind(max_tokens=max_tokens) if max_tokens else llm
    try:
        reply = model.invoke(messages)
    except openai.BadRequestError:
        return "", list(dialogue)
    usage.add(reply)
    content = str(reply.content or "")
    return content, [*turns, {"role": "assistant", "content": content}]
