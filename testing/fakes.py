"""Deterministic stand-ins for the outside world, speaking our own interfaces."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

DATA = Path(__file__).parent / "data"


class FakeChat(BaseChatModel):
    """A chat model whose reply is chosen by a responder, like the scripted HTTP server.

    The responder gets {"tool": name or None, "prompt": text} and returns
    {"args": {...}} for a tool call or {"content": "..."} for text.
    """

    responder: Any
    calls: list = []
    bound_tool: str | None = None

    @property
    def _llm_type(self) -> str:
        return "fake-chat"

    def bind_tools(self, tools, tool_choice=None, **kwargs):
        name = tools[0].__name__ if isinstance(tools[0], type) else tools[0]["function"]["name"]
        return self.model_copy(update={"bound_tool": name})

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        prompt = "\n".join(str(m.content) for m in messages)
        self.calls.append({"tool": self.bound_tool, "prompt": prompt})
        reply = self.responder({"tool": self.bound_tool, "prompt": prompt})
        if "args" in reply:
            message = AIMessage(content="", tool_calls=[{"name": self.bound_tool, "args": reply["args"], "id": "c1"}])
        else:
            message = AIMessage(content=reply.get("content", ""))
        message.usage_metadata = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
        return ChatResult(generations=[ChatGeneration(message=message)])


class RecordedEntrez:
    """A PubMed transport answering from recorded NCBI responses; records each request."""

    def __init__(self, esearch: str = "esearch_metformin.xml", efetch: str = "efetch_metformin.xml"):
        self.files = {"esearch": esearch, "efetch": efetch}
        self.requests: list[tuple[str, dict]] = []

    def __call__(self, endpoint: str, params: dict) -> bytes:
        self.requests.append((endpoint, params))
        return (DATA / self.files[endpoint]).read_bytes()


PMID_EV = {
    "id": "pmid:31000001",
    "kind": "pubmed",
    "title": "Metformin first line",
    "snippet": "",
    "year": 2021,
    "pmid": "31000001",
    "doi": None,
    "url": "https://pubmed.ncbi.nlm.nih.gov/31000001/",
    "journal": None,
    "release": None,
    "retrieved_at": "2026-01-01T00:00:00.000000Z",
}


def chat(**by_tool) -> FakeChat:
    """A FakeChat answering each tool (or text, key None) from ``by_tool``."""
    return FakeChat(responder=lambda req: by_tool.get(req["tool"] or "text", {"content": "thinking..."}), calls=[])
