"""A scripted OpenAI-compatible HTTP server: real HTTP, deterministic replies chosen by the request.

A responder gets the request body (dict) and returns either
``{"tool": NAME, "args": {...}}`` (a forced tool call, as llama.cpp returns for
``with_structured_output(method="function_calling")``) or ``{"content": "text"}``, optionally
with ``"logprobs": [...]`` (OpenAI's ``logprobs.content``: per token, its logprob and top alternatives).
Faults, for robustness tests: ``{"status": 500, "error": "text"}`` (an HTTP error in OpenAI's
format), ``{"raw": "text"}`` (a 200 reply that is not JSON), ``{"payload": {...}}`` (a 200 reply
sent as is, e.g. with no choices); ``"delay": seconds`` before any reply.
The helpers below tell which agent is asking from the newest turn of the conversation.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from amg.prompts import load

Responder = Callable[[dict], dict]


def requested_tool(body: dict) -> str | None:
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        return choice.get("function", {}).get("name")
    tools = body.get("tools") or []
    return tools[0]["function"]["name"] if tools else None


def prompt_text(body: dict) -> str:
    return "\n".join(str(m.get("content") or "") for m in body.get("messages", []))


def completion(reply: dict, model: str) -> dict:
    message: dict = {"role": "assistant", "content": reply.get("content", "")}
    if "tool" in reply:
        message = {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": reply["tool"], "arguments": json.dumps(reply["args"])},
                }
            ],
        }
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls" if "tool" in reply else "stop"}
    if "logprobs" in reply:
        choice["logprobs"] = {"content": reply["logprobs"], "refusal": None}
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [choice],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


class ScriptedServer:
    def __init__(self, responder: Responder, model: str = "scripted"):
        self.responder, self.model, self.requests = responder, model, []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, code: int, payload: dict | str) -> None:
                body = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a timeout under test)

            def do_GET(self):
                self._send(200, {"object": "list", "data": [{"id": server.model, "object": "model"}]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                reply = server.responder(body)
                time.sleep(reply.get("delay", 0))
                if "status" in reply:
                    error = {"message": reply.get("error", "scripted failure"), "type": "server_error"}
                    self._send(reply["status"], {"error": error})
                elif "raw" in reply or "payload" in reply:
                    self._send(200, reply.get("raw", reply.get("payload")))
                else:
                    self._send(200, completion(reply, server.model))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def last_turn(body: dict) -> str:
    """The newest message: what this call asks (earlier turns are the conversation so far)."""
    return str((body.get("messages") or [{}])[-1].get("content") or "")


def asks_for_entities(body: dict) -> bool:
    """The query parser's request (plain "term | type" lines, no tool)."""
    return requested_tool(body) is None and "medical terms from the question" in last_turn(body)


def asks_for_answer(body: dict) -> bool:
    """The answer synthesizer's request (plain "Key: value" lines, no tool)."""
    return requested_tool(body) is None and "final answer" in last_turn(body)


def answer_lines(option: str | None = None, answer: str = "", confidence: float = 0.5, citations: tuple = ()) -> dict:
    """A reply in the answer format."""
    first = f"Option: {option}" if option else f"Answer: {answer}"
    cited = ", ".join(map(str, citations)) or "none"
    return {"content": f"{first}\nConfidence: {confidence}\nCitations: {cited}"}


def asks_for_sample(body: dict) -> bool:
    """One of the short answers sampled for an open answer's confidence (agents/answer_synthesizer/agreement.py),
    recognised by its prompt's own text."""
    return requested_tool(body) is None and load("short_answer").format().strip() in last_turn(body)


def asks_to_verify(body: dict) -> bool:
    """The answer check's request: is the answer just given correct (agents/answer_synthesizer/self_check.py)."""
    return requested_tool(body) is None and "Is the answer you just gave correct" in last_turn(body)


def verdict(p_yes: float) -> dict:
    """A reply to the answer check whose "yes" has probability ``p_yes`` (and "no" the rest)."""
    said = "yes" if p_yes >= 0.5 else "no"
    top = [
        {"token": " yes", "logprob": math.log(max(p_yes, 1e-9))},
        {"token": " no", "logprob": math.log(max(1 - p_yes, 1e-9))},
    ]
    steps = [
        {"token": "Answer", "logprob": 0.0, "top_logprobs": []},
        {"token": ":", "logprob": 0.0, "top_logprobs": []},
        {"token": f" {said}", "logprob": top[0 if said == "yes" else 1]["logprob"], "top_logprobs": top},
    ]
    return {"content": f"Answer: {said}", "logprobs": steps}
