"""A scripted OpenAI-compatible endpoint on loopback: the LLM stand-in of the soak bench.

The interaction node reaches it through ``llm.base_url`` as it would reach llama.cpp or vLLM
(``/v1/completions`` and ``/v1/chat/completions``, streamed or not). What it answers:

* a reading prompt (core/reading: it ends with ``reading:\\n-``): ``readings[utterance]``
  (default ``other``); a slot check (``\\nclaim: ...\\nanswer:``): yes, no to the omission
  questions; whether a reply speaks about every time (``\\nsaid: ...\\nanswer:``): ``this
  time``; what people call a thing (``\\ncalled:``): the thing's own name (nothing new) --
  the same answers as the tests' stand-in (``test/fake_llm_server.py``);
* a console prompt (it holds ``# Current interaction:``): ``plan(utterance)[n]``, where
  ``utterance`` is the last user utterance in the current interaction (the output of the
  last ``wait_for_trigger()``) and ``n`` the number of statements run since; past the plan
  (or before any utterance) ``wait_for_trigger()``. The answer depends only on the prompt, so
  a stop or a reset that cuts a turn short never puts the script out of step;
* anything else (L_improve's chat): ``other`` (a text that is no lesson: the learner falls
  back to its ``final`` example in ``auto`` mode).

Counters: ``calls`` by kind. Only loopback; ``close()`` ends the server thread.
"""
from __future__ import annotations

import ast
import json
import threading
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ..core.console.prompt import CURRENT_HEADING
from ..core.reading.omission import QUESTIONS

WAIT = "wait_for_trigger()"
DIALOG_PREFIX = "{'type': 'dialog'"


def last_utterance(interaction: str) -> tuple[str | None, int]:
    """(the last user utterance in a console interaction's text, the number of statements
    run after it); (None, 0) before the first one."""
    lines = interaction.split("\n")
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith(DIALOG_PREFIX):
            try:
                said = ast.literal_eval(lines[i])["text"]
            except (ValueError, SyntaxError, KeyError, TypeError):
                continue
            statements = sum(1 for ln in lines[i + 1:]
                             if ln.startswith(">>> ") and not ln[4:].lstrip().startswith("#"))
            return said, statements
    return None, 0


class ScriptedEndpoint:
    """The stand-in server; ``plan`` maps an utterance to its turn's statements."""

    def __init__(self, plan: Callable[[str], list[str]], readings: dict[str, str] | None = None,
                 other: str = "other") -> None:
        self.plan = plan
        self.readings = dict(readings or {})
        self.other = other
        self.calls: Counter = Counter()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = {}
                text = server.answer(body)
                chat = self.path.endswith("/chat/completions")
                try:
                    if body.get("stream"):
                        self._stream(body, text, chat)
                    else:
                        self._whole(body, text, chat)
                except OSError:                        # the client left (a stop)
                    with server._lock:
                        server.calls["client_left"] += 1

            def _whole(self, body: dict, text: str, chat: bool) -> None:
                choice = ({"index": 0, "finish_reason": "stop",
                           "message": {"role": "assistant", "content": text}} if chat else
                          {"index": 0, "finish_reason": "stop", "text": text, "logprobs": None})
                data = json.dumps({"id": "soak-1", "created": 0, "model": body.get("model", "?"),
                                   "object": "chat.completion" if chat else "text_completion",
                                   "choices": [choice], "usage": _usage(text)}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, body: dict, text: str, chat: bool) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                kind = "chat.completion.chunk" if chat else "text_completion"
                head = {"id": "soak-1", "created": 0, "model": body.get("model", "?"),
                        "object": kind}
                for piece in [text[i:i + 16] for i in range(0, len(text), 16)] or [""]:
                    delta = {"delta": {"content": piece}} if chat else {"text": piece}
                    self._event({**head, "choices": [{"index": 0, "finish_reason": None,
                                                       **delta}]})
                last = {"delta": {}} if chat else {"text": ""}
                self._event({**head, "choices": [{"index": 0, "finish_reason": "stop", **last}]})
                self._event({**head, "choices": [], "usage": _usage(text)})
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

            def _event(self, data: dict) -> None:
                self.wfile.write(b"data: " + json.dumps(data).encode() + b"\n\n")
                self.wfile.flush()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, name="scripted-llm",
                                        daemon=True)
        self._thread.start()

    def answer(self, body: dict) -> str:
        """The text for one request (see the module's docstring)."""
        prompt = body.get("prompt")
        kind, text = "other", self.other
        if isinstance(prompt, str):
            reading = self._reading(prompt)
            if reading is not None:
                kind, text = "reading", reading
            elif CURRENT_HEADING in prompt:
                said, done = last_utterance(prompt.rsplit(CURRENT_HEADING, 1)[1])
                steps = self.plan(said) if said is not None else []
                kind, text = "console", steps[done] if done < len(steps) else WAIT
        with self._lock:
            self.calls[kind] += 1
        return text

    def _reading(self, prompt: str) -> str | None:
        if prompt.endswith("\ncalled:") and "\nthing: " in prompt:
            thing = prompt.rsplit("\nthing: ", 1)[1][:-len("\ncalled:")]
            return " " + ", ".join([thing] * 3) + "\n"
        if prompt.endswith("\nanswer:") and "\nclaim: " in prompt:
            claim = prompt.rsplit("\nclaim: ", 1)[1][:-len("\nanswer:")]
            return " " + ("no" if claim in QUESTIONS else "yes")
        if prompt.endswith("\nanswer:") and "\nsaid: " in prompt:
            return " this time"
        if not prompt.endswith("\nreading:\n-"):
            return None
        said = prompt.rsplit("\nsaid: ", 1)[-1].split("\n", 1)[0]
        return " " + self.readings.get(said, "other").replace("\n", "\n- ") + "\n\n"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(5)


def _usage(text: str) -> dict:
    completion = max(1, len(text) // 4)
    return {"prompt_tokens": 100, "completion_tokens": completion,
            "total_tokens": 100 + completion}
