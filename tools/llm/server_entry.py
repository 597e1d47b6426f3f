"""Entry point of the embedded LLM server: ``llama_cpp.server`` reading ``max_completion_tokens``.

``ChatOpenAI`` sends the output limit as ``max_completion_tokens`` (OpenAI's current name);
llama-cpp-python's server only reads ``max_tokens`` and would otherwise generate until the
context is full. A small ASGI wrapper copies the one name to the other before the app sees it.
"""

from __future__ import annotations

import json

import uvicorn
from llama_cpp.server import __main__ as llama_server


class CompletionTokensAlias:
    """ASGI middleware: a JSON body's ``max_completion_tokens`` becomes ``max_tokens``."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("method") != "POST":
            return await self.app(scope, receive, send)
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        body = alias_limit(body)
        headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
        scope = {**scope, "headers": headers + [(b"content-length", str(len(body)).encode())]}
        delivered = False

        async def replay():
            nonlocal delivered
            if delivered:
                return await receive()
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await self.app(scope, replay, send)


def alias_limit(body: bytes) -> bytes:
    try:
        data = json.loads(body)
    except ValueError:
        return body
    if isinstance(data, dict) and data.get("max_completion_tokens") and not data.get("max_tokens"):
        data["max_tokens"] = data.pop("max_completion_tokens")
        return json.dumps(data).encode()
    return body


def main() -> None:
    serve = uvicorn.run
    uvicorn.run = lambda app, **kwargs: serve(CompletionTokensAlias(app), **kwargs)
    llama_server.main()


if __name__ == "__main__":
    main()
