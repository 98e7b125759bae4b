"""A real OpenAI-compatible chat-completions server on 127.0.0.1 with scripted replies.

The tests' loopback models and the benchmark's scripted model (benchmarks/scripted_model.py)
both answer through it, so what the loop talks to is the real `openai` client over HTTP.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# A script step: (status, reply text or error body, finish_reason, delay_s)
Step = tuple[int, str, str, float]


def ok(text: str, finish: str = "stop", delay: float = 0.0) -> Step:
    return (200, text, finish, delay)


def error(status: int, message: str = "scripted error") -> Step:
    return (status, message, "", 0.0)


class ChatServer:
    """Serves POST .../chat/completions. Replies come from `script` (one step per request, in
    order) and, once it is used up, from `responder(request_json) -> text`. `port` 0 picks a
    free one."""

    def __init__(
        self, responder: Callable[[dict[str, Any]], str] | None = None, port: int = 0
    ) -> None:
        self.script: list[Step] = []
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                return

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                server.headers.append({k.lower(): v for k, v in self.headers.items()})
                try:
                    status, text, finish, delay = server.next_step(body)
                except Exception as exc:  # a responder's bug: a 500 the client can report
                    status, text, finish, delay = error(500, f"{type(exc).__name__}: {exc}")
                if delay:
                    time.sleep(delay)
                if status != 200:
                    err: dict[str, object] = {"message": text, "type": "scripted", "code": status}
                    self._send(status, {"error": err})
                    return
                words = sum(len(m.get("content") or "") for m in body["messages"]) // 4
                payload: dict[str, object] = {
                    "id": f"cmpl-{len(server.requests)}", "object": "chat.completion",
                    "created": int(time.time()), "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": finish,
                                 "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": words, "completion_tokens": len(text) // 4,
                              "total_tokens": words + len(text) // 4},
                }  # fmt: skip
                self._send(200, payload)

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError):  # the client timed out and left
                    self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def next_step(self, body: dict[str, Any]) -> Step:
        if self.script:
            return self.script.pop(0)
        if self.responder is None:
            return error(500, "script exhausted")
        return ok(self.responder(body))

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> ChatServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
