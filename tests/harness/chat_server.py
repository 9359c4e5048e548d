"""A loopback OpenAI-compatible chat server that records every request and answers truthfully.

    python chat_server.py ITEMS.json LOG.jsonl        # prints `PORT <n>` when ready

ITEMS.json: [{"id", "answer", "images": [paths of the item's images, in prompt order]}]. A request
is matched to the item whose images look most like the request's images (8x8 grey thumbnails:
VLMEvalKit re-encodes images as JPEG, so bytes never match), or, without images, whose id its text
names; the answer is that item's `answer`. Each request is logged as one JSON line: the matched
item, and every message's content as parts (text as sent; an image as its size and a pixel
digest). Requests are checked with tests/openai_stub_server.check_request (the chat format).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from openai_stub_server import check_request  # noqa: E402  (the chat-format check the runner tests use)


def thumbnail(image: Image.Image) -> list[int]:
    return list(image.convert("L").resize((8, 8), Image.BILINEAR).tobytes())


def distance(a: list[list[int]], b: list[list[int]]) -> float:
    return sum(abs(x - y) for ta, tb in zip(a, b) for x, y in zip(ta, tb))


class Items:
    def __init__(self, path: Path):
        self.items = json.loads(path.read_text())
        for item in self.items:
            item["thumbs"] = [thumbnail(Image.open(p)) for p in item["images"]]

    def match(self, thumbs: list[list[int]], text: str) -> dict | None:
        if thumbs:
            candidates = [i for i in self.items if len(i["thumbs"]) == len(thumbs)]
            return min(candidates, key=lambda i: distance(i["thumbs"], thumbs), default=None)
        return next((i for i in self.items if i["id"] in text), None)


def decode(url: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def parts_of(messages: list) -> tuple[list[dict], list[list[int]], str]:
    logged, thumbs, texts = [], [], []
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        parts = []
        for part in content:
            if part["type"] == "text":
                parts.append({"type": "text", "text": part["text"]})
                texts.append(part["text"])
            else:
                url = part[part["type"]]["url"]
                image = decode(url) if url.startswith("data:image/") else None
                if image is not None:
                    thumbs.append(thumbnail(image))
                    parts.append({"type": "image", "size": list(image.size),
                                  "digest": hashlib.sha256(image.convert("RGB").tobytes()).hexdigest()[:16]})
                else:
                    parts.append({"type": part["type"], "url": url[:80]})
        logged.append({"role": message["role"], "parts": parts})
    return logged, thumbs, "\n".join(texts)


def serve(items_path: str, log_path: str) -> None:
    items = Items(Path(items_path))
    lock = threading.Lock()
    log = open(log_path, "a", encoding="utf-8")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, status: int, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"null")
            problem = check_request(body) if self.path.rstrip("/").endswith("/chat/completions") else "no route"
            if problem:
                with lock:
                    log.write(json.dumps({"invalid": problem}) + "\n")
                    log.flush()
                return self.reply(400, {"error": {"message": problem}})
            messages, thumbs, text = parts_of(body["messages"])
            item = items.match(thumbs, text)
            answer = item["answer"] if item else "no item matched"
            with lock:
                log.write(json.dumps({"item": item and item["id"], "model": body["model"], "messages": messages}) + "\n")
                log.flush()
            self.reply(200, {"id": "chatcmpl-foldsim-harness", "object": "chat.completion", "model": body["model"],
                             "choices": [{"index": 0, "finish_reason": "stop",
                                          "message": {"role": "assistant", "content": answer}}],
                             "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2])
