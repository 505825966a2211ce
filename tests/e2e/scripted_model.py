"""A scripted OpenAI-compatible model on 127.0.0.1 that plays the agent in an OpenCode run.

It answers `/v1/chat/completions` with streamed chunks as OpenCode's provider expects. Each turn
it counts the tool results already in the conversation and asks for the next scripted tool call
(arguments may be built from earlier results, e.g. the failure id for record_resolution; a
subagent's conversation plays a script of its own); when
the script is done it gives a final answer quoting the last result. A pause holds the answer at
a point of the run until the test lets it go, so a test can act while OpenCode is mid-session.
Requests without tools (OpenCode's title generation) get a plain title. Every request body is
recorded, with when it arrived.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.loopback import serving

SERVER_PREFIX = "kg-brain_"  # OpenCode names an MCP tool <server>_<tool>
BUILT_IN = {"bash", "read", "write", "edit", "task"}  # OpenCode's own tools, called by their names
Args = dict[str, Any] | Callable[[list[Any]], dict[str, Any]]
PAUSE_S = 600  # a pause never outlasts this, whatever the test does


@dataclass(frozen=True)
class Step:
    tool: str
    args: Args = field(default_factory=dict)

    def arguments(self, results: list[Any]) -> dict[str, Any]:
        return self.args(results) if callable(self.args) else self.args


def content_text(content: Any) -> str:
    """A message's content as text (a string, or a list of text parts)."""
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content or [] if isinstance(p, dict))


def parsed(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


@dataclass(frozen=True)
class Pause:
    """`reached` once the run has got this many tool results; the model answers once `go`."""
    reached: threading.Event = field(default_factory=threading.Event)
    go: threading.Event = field(default_factory=threading.Event)


class ScriptedModel:
    """The script for the current run, its pauses, and everything the model was sent."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        # a conversation whose first user message holds a key plays that key's steps instead (a
        # subagent's session, prompted by a `task` step)
        self.scripts: dict[str, list[Step]] = {}
        self.pauses: dict[int, Pause] = {}
        self.requests: list[dict[str, Any]] = []
        self.arrived: list[float] = []  # time.monotonic() of each request, in order
        self.lock = threading.Lock()

    def pause_after(self, results: int) -> Pause:
        """Hold the answer to the turn that follows the `results`-th tool result."""
        return self.pauses.setdefault(results, Pause())

    def tool_results(self) -> list[str]:
        """The tool results of the last agent turn's conversation, in order, as text."""
        agent = [r for r in self.requests if r.get("tools")]
        if not agent:
            return []
        return [content_text(m["content"]) for m in agent[-1]["messages"] if m["role"] == "tool"]

    def reply(self, body: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """The assistant delta and finish reason for one request."""
        with self.lock:
            self.requests.append(body)
            self.arrived.append(time.monotonic())
        if not body.get("tools"):
            return {"role": "assistant", "content": "kg-brain session"}, "stop"
        results = [parsed(content_text(m["content"])) for m in body["messages"]
                   if m["role"] == "tool"]
        pause = self.pauses.get(len(results))
        if pause is not None:
            pause.reached.set()
            pause.go.wait(PAUSE_S)
        offered = {t["function"]["name"] for t in body["tools"]}
        first = next((content_text(m["content"]) for m in body["messages"] if m["role"] == "user"),
                     "")
        steps = next((s for key, s in self.scripts.items() if key in first), self.steps)
        if len(results) >= len(steps):
            last = content_text(body["messages"][-1]["content"]) if results else ""
            return {"role": "assistant", "content": f"Done. The memory answered: {last}"}, "stop"
        step = steps[len(results)]
        name = step.tool if step.tool in BUILT_IN else SERVER_PREFIX + step.tool
        if name not in offered:
            return {"role": "assistant", "content": f"tool {name} was not offered"}, "stop"
        call = {"index": 0, "id": f"call_{len(results) + 1}", "type": "function",
                "function": {"name": name, "arguments": json.dumps(step.arguments(results))}}
        return {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"


def _chunks(model: str, delta: dict[str, Any], finish: str) -> Iterator[bytes]:
    usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    for choices, extra in (([{"index": 0, "delta": delta, "finish_reason": None}], {}),
                           ([{"index": 0, "delta": {}, "finish_reason": finish}], {}),
                           ([], {"usage": usage})):
        chunk = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0,
                 "model": model, "choices": choices, **extra}
        yield b"data: " + json.dumps(chunk).encode() + b"\n\n"
    yield b"data: [DONE]\n\n"


def _handler(script: ScriptedModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            """Quiet: the recorded requests are the log."""

        def do_POST(self) -> None:
            if not self.path.endswith("/chat/completions"):
                self.send_error(404)
                return
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            delta, finish = script.reply(body)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            for chunk in _chunks(str(body.get("model")), delta, finish):
                self.wfile.write(chunk)
            self.wfile.flush()

    return Handler


@contextmanager
def scripted_model() -> Iterator[tuple[ScriptedModel, str]]:
    """The model and its base URL (`http://127.0.0.1:<port>/v1`) until the block ends."""
    script = ScriptedModel()
    with serving(_handler(script)) as url:
        yield script, f"{url}/v1"
