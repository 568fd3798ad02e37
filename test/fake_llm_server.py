"""A tiny OpenAI-compatible HTTP server on loopback: the LLM stand-in for client and CLI tests."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeLLMServer:
    """Records every request; answers from ``replies`` (in order), then with ``default``.

    A reply is a dict: status (200), body (dict; built by default), delay (s), headers.
    """

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.replies: list[dict] = []
        self.text = "print('hi')"
        self.texts: list[str] = []   # answered in order before falling back to ``text``
        self.usage: dict | None = {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}
        self.extra: dict = {}  # extra top-level response fields (e.g. llama.cpp "timings")
        self.stop_event = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep pytest output clean
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append(
                    {"path": self.path, "json": body, "auth": self.headers.get("Authorization")}
                )
                reply = server.replies.pop(0) if server.replies else {}
                if reply.get("delay"):
                    server.stop_event.wait(reply["delay"])
                status = reply.get("status", 200)
                payload = reply.get("body") or server.default_body(self.path, body)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in reply.get("headers", {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (timeout test)
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def default_body(self, path: str, request: dict) -> dict:
        common = {"id": "x-1", "created": 0, "model": request.get("model", "?"), **self.extra}
        if self.usage is not None:
            common["usage"] = self.usage
        if path.endswith("/chat/completions"):
            return {
                **common,
                "object": "chat.completion",
                "choices": [
                    {"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": self.next_text()}}
                ],
            }
        return {
            **common,
            "object": "text_completion",
            "choices": [{"index": 0, "finish_reason": "stop", "text": self.next_text(),
                         "logprobs": None}],
        }

    def next_text(self) -> str:
        return self.texts.pop(0) if self.texts else self.text

    def close(self) -> None:
        self.stop_event.set()
        self.httpd.shutdown()
        self.httpd.server_close()
