"""A real OpenAI-compatible chat server for the runner tests: stdlib http.server in its own
process, on 127.0.0.1 and a free port, speaking POST /v1/chat/completions.

It answers from a script (a JSON file) and logs every request (JSON Lines), so tests can prove
retries, resumption and that nothing is asked or written twice:

    {"answers": {"<key>": "<assistant text>"},      answer text per request (key: message_key)
     "default_answer": "...",                        for keys without one
     "faults": {"<key>": ["429:0.3", "500", "stall", "drop", "garbage", "400"]},
                                                     what the first requests of a key get, in turn:
                                                     429 with Retry-After 0.3 s, a 500, no answer
                                                     for `stall` seconds, a dropped connection, a
                                                     200 that is not JSON, a 400; then the answer
     "delay": 0.0,                                   seconds before every answer
     "hold_after": null,                             when a number n: answers after the first n wait
                                                     until the test allows more (`StubServer.allow`),
                                                     so a client is provably mid-run while held; a
                                                     held request whose client hangs up is dropped
                                                     (logged "abandoned")
     "stall": 5.0,
     "api_key": null,                                when set, other keys get 401
     "log_messages": false}                          when true, each valid request's messages
                                                     are logged too (row field "messages")

Requests are checked against the chat format (model, messages, content parts of type text /
image_url / video_url with data: or http(s) URLs); a bad one gets 400 and is logged as "invalid". A
body cut short (the client hung up while sending it) gets no answer and is logged as "incomplete".

Run: `python tests/openai_stub_server.py SCRIPT.json LOG.jsonl`; it prints `PORT <n>` when ready.
Tests use `StubServer` (a context manager that starts and stops the process).
"""

from __future__ import annotations

import hashlib
import json
import select
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def message_key(messages: list) -> str:
    """The key a request is answered and logged under: a hash of its messages."""
    text = json.dumps(messages, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def check_request(body: object) -> str:
    """'' for a well-formed chat request, else what is wrong."""
    if not isinstance(body, dict):
        return "the body is not an object"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model missing"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages missing"
    for message in messages:
        if not isinstance(message, dict) or message.get("role") not in ("system", "user", "assistant"):
            return "bad message role"
        content = message.get("content")
        if isinstance(content, str):
            continue
        if not isinstance(content, list):
            return "content must be a string or a list of parts"
        for part in content:
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "text" and isinstance(part.get("text"), str):
                continue
            if kind in ("image_url", "video_url"):
                url = (part.get(kind) or {}).get("url", "")
                prefix = "data:image/" if kind == "image_url" else "data:video/"
                if isinstance(url, str) and (url.startswith(prefix) or url.startswith(("http://", "https://"))):
                    continue
            return f"bad content part {str(part)[:80]}"
    return ""


class Script:
    """The server's behaviour and its per-key request counts (shared by the handler threads)."""

    def __init__(self, data: dict, log_path: Path):
        self.answers = data.get("answers", {})
        self.default = data.get("default_answer", '```json\n{"resultHoles": [], "totalNumberofHoles": 0}\n```')
        self.faults = data.get("faults", {})
        self.delay = float(data.get("delay", 0.0))
        self.stall = float(data.get("stall", 5.0))
        self.api_key = data.get("api_key")
        self.log_messages = bool(data.get("log_messages", False))
        self.hold_after = data.get("hold_after")
        self.allow_path = allow_path(log_path)
        self.given = 0  # answers let through the hold so far
        self.counts: dict[str, int] = {}
        self.lock = threading.Lock()
        self.log_handle = open(log_path, "a", encoding="utf-8")

    def allowed(self) -> int:
        """How many answers may be given now: `hold_after`, or what the test allowed since."""
        try:
            return int(self.allow_path.read_text())
        except (OSError, ValueError):
            return self.hold_after

    def take_turn(self) -> bool:
        """Claim the right to answer now (always, without a hold)."""
        with self.lock:
            if self.hold_after is not None and self.given >= self.allowed():
                return False
            self.given += 1
            return True

    def return_turn(self) -> None:
        """An answer that could not be delivered (the client hung up) does not count."""
        with self.lock:
            self.given -= 1

    def next_outcome(self, key: str) -> tuple[int, str]:
        with self.lock:
            n = self.counts.get(key, 0)
            self.counts[key] = n + 1
        faults = self.faults.get(key, [])
        return n + 1, faults[n] if n < len(faults) else "answer"

    def log(self, **row) -> None:
        with self.lock:
            self.log_handle.write(json.dumps({"t": time.time(), **row}) + "\n")
            self.log_handle.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    script: Script

    def log_message(self, *args) -> None:  # quiet
        pass

    def _reply(self, status: int, body: bytes, headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _error(self, status: int, message: str, headers: dict | None = None) -> None:
        self._reply(status, json.dumps({"error": {"message": message, "type": "stub"}}).encode(), headers)

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        script = self.script
        length = int(self.headers.get("content-length", 0))
        raw = self.rfile.read(length)
        if len(raw) < length:
            script.log(key=None, n=0, outcome="incomplete", received=len(raw), length=length)
            self.close_connection = True
            return None
        if not self.path.rstrip("/").endswith("/v1/chat/completions"):
            script.log(key=None, n=0, outcome="not_found", path=self.path)
            return self._error(404, f"no route {self.path}")
        if script.api_key and self.headers.get("authorization") != f"Bearer {script.api_key}":
            script.log(key=None, n=0, outcome="unauthorized")
            return self._error(401, "bad api key")
        try:
            body = json.loads(raw)
        except ValueError:
            script.log(key=None, n=0, outcome="invalid", problem="not JSON")
            return self._error(400, "not JSON")
        problem = check_request(body)
        if problem:
            script.log(key=None, n=0, outcome="invalid", problem=problem)
            return self._error(400, problem)
        key = message_key(body["messages"])
        n, outcome = script.next_outcome(key)
        script.log(key=key, n=n, outcome=outcome, model=body["model"], max_tokens=body.get("max_tokens"),
                   images=sum(1 for m in body["messages"] if isinstance(m.get("content"), list)
                              for p in m["content"] if p.get("type") == "image_url"),
                   **({"messages": body["messages"]} if script.log_messages else {}))
        if outcome.startswith("429"):
            _, _, seconds = outcome.partition(":")
            return self._error(429, "slow down", {"retry-after": seconds or "1"})
        if outcome in ("500", "502", "503"):
            return self._error(int(outcome), "server trouble")
        if outcome == "400":
            return self._error(400, "refused")
        if outcome == "stall":
            time.sleep(script.stall)
            self.close_connection = True
            return None
        if outcome == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return None
        if outcome == "garbage":
            return self._reply(200, b"<html>not json")
        if not self._hold(script):
            script.log(key=key, n=n, outcome="abandoned")
            return None
        time.sleep(script.delay)
        content = script.answers.get(key, script.default)
        prompt_tokens = len(raw) // 4
        answer = {"id": f"chatcmpl-stub-{key}-{n}", "object": "chat.completion", "created": int(time.time()),
                  "model": body["model"],
                  "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                  "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(content) // 4,
                            "total_tokens": prompt_tokens + len(content) // 4}}
        try:
            self._reply(200, json.dumps(answer).encode())
        except (BrokenPipeError, ConnectionResetError):
            script.return_turn()

    def _hold(self, script: Script, limit: float = 300.0) -> bool:
        """Wait for a turn to answer (see `hold_after`); False when the client hung up first (or,
        as a backstop against a test that forgets to allow more, after `limit` seconds)."""
        deadline = time.monotonic() + limit
        while not self._client_gone() and time.monotonic() < deadline:
            if script.take_turn():
                return True
            time.sleep(0.01)
        self.close_connection = True
        return False

    def _client_gone(self) -> bool:
        """The client closed its end (a cancelled request): the socket reads as end of file."""
        readable, _, _ = select.select([self.connection], [], [], 0)
        try:
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True


def allow_path(log_path: Path) -> Path:
    """The file through which a test raises the number of answers a held server may give."""
    return Path(log_path).with_name("stub_allow")


def serve(script_path: str, log_path: str) -> None:
    script = Script(json.loads(Path(script_path).read_text()), Path(log_path))
    handler = type("ScriptedHandler", (Handler,), {"script": script})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


class StubServer:
    """The stub server as a subprocess: `with StubServer(script, tmp_path) as server:` gives
    `server.url` and `server.log()` (the request log rows)."""

    def __init__(self, script: dict, folder: Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.script_path = self.folder / "stub_script.json"
        self.log_path = self.folder / "stub_log.jsonl"
        self.script_path.write_text(json.dumps(script))
        self.log_path.write_text("")
        allow_path(self.log_path).unlink(missing_ok=True)
        self.process: subprocess.Popen | None = None
        self.url = ""

    def __enter__(self) -> "StubServer":
        self.process = subprocess.Popen([sys.executable, __file__, str(self.script_path), str(self.log_path)],
                                        stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("PORT "):
            self.process.kill()
            raise RuntimeError(f"stub server did not start: {line!r}")
        self.url = f"http://127.0.0.1:{int(line.split()[1])}"
        return self

    def log(self) -> list[dict]:
        return [json.loads(line) for line in self.log_path.read_text().splitlines() if line.strip()]

    def allow(self, answers: int) -> None:
        """Let a server scripted with `hold_after` give `answers` answers in all (held requests go on)."""
        scratch = self.folder / "stub_allow.tmp"
        scratch.write_text(str(answers))
        scratch.replace(allow_path(self.log_path))

    def __exit__(self, *exc) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process.stdout.close()


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2])
