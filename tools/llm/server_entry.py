"""Entry point of the embedded LLM server: ``llama_cpp.server`` with two OpenAI behaviours it lacks, on
weights it can read on this CPU.

- ``ChatOpenAI`` sends the output limit as ``max_completion_tokens`` (OpenAI's current name);
  llama-cpp-python's server only reads ``max_tokens`` and would otherwise generate until the
  context is full. A small ASGI wrapper copies the one name to the other before the app sees it.
- ``logprobs``/``top_logprobs`` on chat completions: llama-cpp-python serves them only for a
  model loaded with ``logits_all``, which computes and copies every prompt token's logits and
  halved prompt reading. The answer's confidence needs the log-probabilities of the generated
  tokens only, which sampling has anyway: a logits processor records them at each step.
- On a CPU with AMX (Intel Sapphire Rapids and later), llama.cpp repacks the weights into AMX buffers and
  its first multi-token batch crashes with a segmentation fault (ggml-org/llama.cpp#20824: the server dies on
  its first chat completion). There the weights load without the extra buffer types, which is also faster than
  the repacking a build without AMX does.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import llama_cpp.llama_cpp as llama_lib
import numpy as np
import uvicorn
from llama_cpp import Llama, LogitsProcessorList
from llama_cpp.server import __main__ as llama_server

from amg.tools.llm.logprobs import TokenLogprob


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


def with_step_logprobs(create):
    """Wrap ``Llama.create_chat_completion`` so a request for logprobs works without ``logits_all``."""

    @functools.wraps(create)
    def create_chat_completion(
        self: Llama, *args, logprobs=None, top_logprobs=None, logits_processor=None, stream=False, **kwargs
    ):
        if not logprobs or stream or self._logits_all:
            return create(
                self,
                *args,
                logprobs=logprobs,
                top_logprobs=top_logprobs,
                logits_processor=logits_processor,
                stream=stream,
                **kwargs,
            )
        steps: list[tuple[int, np.ndarray]] = []

        def record(input_ids, scores):
            steps.append((len(input_ids), np.array(scores, dtype=np.float32)))
            return scores

        processors = LogitsProcessorList([record, *(logits_processor or [])])
        result = create(self, *args, logits_processor=processors, stream=False, **kwargs)
        result["choices"][0]["logprobs"] = {"content": _content(self, steps, int(top_logprobs or 1)), "refusal": None}
        return result

    return create_chat_completion


def _content(llama: Llama, steps: list[tuple[int, np.ndarray]], top: int) -> list[TokenLogprob]:
    """OpenAI's ``logprobs.content``: per generated token, its log-probability and the top alternatives."""
    content: list[TokenLogprob] = []
    for position, logits in steps:
        if position >= llama.n_tokens:
            break  # the last step's token (often end-of-turn) was never evaluated: not part of the reply
        chosen = int(llama.input_ids[position])
        logprobs = logits - (logits.max() + np.log(np.exp(logits - logits.max()).sum()))
        best = np.argpartition(-logprobs, top)[:top]
        best = best[np.argsort(-logprobs[best])]
        content.append(
            {
                "token": _text(llama, chosen),
                "logprob": float(logprobs[chosen]),
                "bytes": None,
                "top_logprobs": [
                    {"token": _text(llama, int(i)), "logprob": float(logprobs[i]), "bytes": None} for i in best
                ],
            }
        )
    return content


def _text(llama: Llama, token: int) -> str:
    return llama.detokenize([token]).decode("utf-8", errors="replace")


def has_amx(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether the CPU advertises AMX tiles (Linux; False where it cannot be read)."""
    try:
        return " amx_tile" in cpuinfo.read_text(errors="replace")
    except OSError:
        return False


def without_extra_buffers(default_params):
    """Wrap ``llama_model_default_params`` so the weights stay in plain CPU buffers (no AMX repacking)."""

    @functools.wraps(default_params)
    def model_params():
        params = default_params()
        params.use_extra_bufts = False
        return params

    return model_params


def main() -> None:
    if has_amx():
        llama_lib.llama_model_default_params = without_extra_buffers(llama_lib.llama_model_default_params)
    Llama.create_chat_completion = with_step_logprobs(Llama.create_chat_completion)  # type: ignore[method-assign]  # patched on purpose
    serve = uvicorn.run
    uvicorn.run = lambda app, **kwargs: serve(CompletionTokensAlias(app), **kwargs)
    llama_server.main()


if __name__ == "__main__":
    main()
