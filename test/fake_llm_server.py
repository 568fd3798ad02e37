"""A tiny OpenAI-compatible HTTP server on loopback: the LLM stand-in for client and CLI tests."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from llm_interaction_node.core.reading.omission import QUESTIONS


class FakeLLMServer:
    """Records every request; answers from ``replies`` (in order), then with ``default``.

    A reply is a dict: status (200), body (dict; built by default), delay (s), headers.
    A request with ``"stream": true`` is answered as server-sent events, one chunk per
    ``chunk_chars`` characters of the text (default 4), then a usage chunk and ``[DONE]``;
    stream keys of a reply: ``first_token_delay`` (s before the first text chunk), ``gap``
    (s between chunks), ``progress`` (prompt_progress events sent first, llama.cpp style:
    a list of (processed, total)), ``stall_after`` (n chunks, then ``stall_s`` (30) s of
    silence). ``disconnects`` counts streams whose client left before the end.

    A reading prompt (core/reading: it ends with ``reading:\\n-``) is the stand-in reading
    the utterance: it is answered with ``readings[utterance]`` (clauses on lines; default
    ``other``), recorded in ``reading_requests``, and takes nothing from ``texts``; so is a
    slot check (it ends with ``answer:``): ``checks[claim]``, default yes; and the question
    whether a reply speaks about every time (``answer:`` after ``said:``, no claim):
    ``lastings[utterance]``, default ``this time``; and what people call a thing
    (core/reading/other_names.py: the prompt ends with ``called:``): ``called[thing]``,
    default the thing's own name three times (it calls nothing new); a habit read as an edit
    (core/reading/edit_reading.py: the prompt ends with ``when:``): ``edits[utterance]`` (its
    form, ``edit_reading.form_text``), default nothing to learn; whether a thing is of a kind
    (core/reading/kind_of.py: ``answer:`` after ``kind:``): ``kinds[(thing, kind)]``,
    default no.

    ``answer`` (None, or a function of the request's JSON body returning a text or None) is
    asked first for every other request: a stand-in whose answer depends on its prompt (a
    model that copies the example before the interaction); None falls back to ``texts``.
    """

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.replies: list[dict] = []
        self.text = "print('hi')"
        self.texts: list[str] = []   # answered in order before falling back to ``text``
        self.usage: dict | None = {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}
        self.extra: dict = {}  # extra top-level response fields (e.g. llama.cpp "timings")
        self.readings: dict[str, str] = {}
        self.checks: dict[str, str] = {}
        self.lastings: dict[str, str] = {}     # utterance -> "this time" / "every time"
        self.called: dict[str, str] = {}       # a thing's spoken form -> "a, b, c"
        self.edits: dict[str, str] = {}        # utterance -> its edit form (default none)
        self.kinds: dict[tuple[str, str], str] = {}    # (thing, kind) -> yes / no
        self.answer = None
        self.reading_requests: list[dict] = []
        self.stop_event = threading.Event()
        self.disconnects = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep pytest output clean
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                record = {"path": self.path, "json": body,
                          "auth": self.headers.get("Authorization")}
                reading = server.reading_of(body)
                if reading is not None:
                    server.reading_requests.append(record)
                    if body.get("stream"):
                        return self.stream({}, body, reading)
                    return self.answer(200, server.default_body(self.path, body, reading))
                server.requests.append(record)
                reply = server.replies.pop(0) if server.replies else {}
                if reply.get("delay"):
                    server.stop_event.wait(reply["delay"])
                status = reply.get("status", 200)
                text = server.answer(body) if server.answer is not None else None
                if body.get("stream") and status == 200 and not reply.get("body"):
                    return self.stream(reply, body, text)
                payload = reply.get("body") or server.default_body(self.path, body, text)
                self.answer(status, payload, reply.get("headers", {}))

            def answer(self, status: int, payload: dict, headers=None) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (timeout test)
                    pass

            def stream(self, reply: dict, request: dict, text: str | None = None) -> None:
                chat = self.path.endswith("/chat/completions")
                text = server.next_text() if text is None else text
                size = reply.get("chunk_chars", 4)
                pieces = [text[i:i + size] for i in range(0, len(text), size)]
                wait = server.stop_event.wait
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()          # HTTP/1.0: the body ends when the server closes
                    self.wfile.flush()
                    for processed, total in reply.get("progress", []):
                        wait(reply.get("gap", 0))
                        self.event({"prompt_progress": {"total": total, "cache": 0,
                                                        "processed": processed, "time_ms": 1},
                                    "choices": []}, request)
                    wait(reply.get("first_token_delay", 0))
                    for n, piece in enumerate(pieces):
                        if n and reply.get("gap"):
                            wait(reply["gap"])
                        if n == reply.get("stall_after"):
                            wait(reply.get("stall_s", 30))   # silent, then the rest
                        delta = {"delta": {"content": piece}} if chat else {"text": piece}
                        self.event(
                            {"choices": [{"index": 0, "finish_reason": None, **delta}]}, request
                        )
                    last = {"delta": {}} if chat else {"text": ""}
                    self.event({"choices": [{"index": 0, "finish_reason": "stop", **last}],
                                **server.extra}, request)   # llama.cpp: timings here
                    if server.usage is not None:
                        self.event({"choices": [], "usage": server.usage}, request)
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except OSError:  # the client left
                    server.disconnects += 1

            def event(self, data: dict, request: dict) -> None:
                chat = self.path.endswith("/chat/completions")
                data = {"id": "x-1", "created": 0, "model": request.get("model", "?"),
                        "object": "chat.completion.chunk" if chat else "text_completion", **data}
                self.wfile.write(b"data: " + json.dumps(data).encode() + b"\n\n")
                self.wfile.flush()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def reading_of(self, request: dict) -> str | None:
        """The stand-in's reading if ``request`` asks for one (else None); asked whether the
        user said a slot (core/reading/check.py: the prompt ends with ``answer:``), ``checks``
        answers (claim -> yes / no), else yes to a slot, no to what a reading may have left
        out (core/reading/omission.py): the reading stands as given."""
        prompt = request.get("prompt")
        if isinstance(prompt, str) and prompt.endswith("\nkind:") and "\nsaid: " in prompt:
            return " anything"           # the kind a habit's user spoke of: none
        if isinstance(prompt, str) and prompt.endswith("\nwhen:") and "\nsaid: " in prompt:
            said = prompt.rsplit("\nsaid: ", 1)[1][:-len("\nwhen:")]
            return self.edits.get(said, " nothing to learn") + "\n\n"
        if isinstance(prompt, str) and prompt.endswith("\nanswer:") and \
                "\nkind: " in prompt.rsplit("\nthing: ", 1)[-1]:
            thing, kind = prompt.rsplit("\nthing: ", 1)[1][:-len("\nanswer:")].split("\nkind: ")
            return " " + self.kinds.get((thing, kind), "no")
        if isinstance(prompt, str) and prompt.endswith("\ncalled:") and "\nthing: " in prompt:
            thing = prompt.rsplit("\nthing: ", 1)[1][:-len("\ncalled:")]
            return " " + self.called.get(thing, ", ".join([thing] * 3)) + "\n"
        if isinstance(prompt, str) and prompt.endswith("\nanswer:") and "\nclaim: " in prompt:
            claim = prompt.rsplit("\nclaim: ", 1)[1][:-len("\nanswer:")]
            return " " + self.checks.get(claim, "no" if claim in QUESTIONS else "yes")
        if isinstance(prompt, str) and prompt.endswith("\nanswer:") and "\nsaid: " in prompt:
            # whether a reply speaks about every time (core/reading/lasting.py): this time,
            # the reading stands
            said = prompt.rsplit("\nsaid: ", 1)[1][:-len("\nanswer:")]
            return " " + self.lastings.get(said, "this time")
        if not isinstance(prompt, str) or not prompt.endswith("\nreading:\n-"):
            return None
        said = prompt.rsplit("\nsaid: ", 1)[-1].split("\n", 1)[0]
        return " " + self.readings.get(said, "other").replace("\n", "\n- ") + "\n\n"

    def default_body(self, path: str, request: dict, text: str | None = None) -> dict:
        common = {"id": "x-1", "created": 0, "model": request.get("model", "?"), **self.extra}
        if self.usage is not None:
            common["usage"] = self.usage
        if path.endswith("/chat/completions"):
            return {
                **common,
                "object": "chat.completion",
                "choices": [
                    {"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant",
                                 "content": self.next_text() if text is None else text}}
                ],
            }
        return {
            **common,
            "object": "text_completion",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "text": self.next_text() if text is None else text,
                         "logprobs": None}],
        }

    def next_text(self) -> str:
        return self.texts.pop(0) if self.texts else self.text

    def close(self) -> None:
        self.stop_event.set()
        self.httpd.shutdown()
        self.httpd.server_close()
