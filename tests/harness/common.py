"""Helpers the harness checks share (run inside each harness venv, where foldsim is installed)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from PIL import Image


class CheckFailed(AssertionError):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def digest(image: Image.Image) -> str:
    """The same pixel digest the lmms-eval recorder writes."""
    return hashlib.sha256(image.convert("RGB").tobytes()).hexdigest()[:16]


def records(dataset: Path) -> dict[str, dict]:
    from foldsim.io import read_records

    return {str(r["id"]): r for r in read_records(next(Path(dataset).glob("PFHP_*_Data.json")))}


def sent_parts(dataset: Path, task: str, modality: str, record: dict) -> list[dict]:
    """The user message `foldsim eval` sends for a record: text parts as they are, images as their
    size and pixel digest, the video as its file name, in order."""
    from foldsim.eval.prompts import load_prompt

    [message] = [m for m in load_prompt(task, modality).messages(record, dataset_dir=Path(dataset)) if m.role == "user"]
    parts = []
    for part in message.parts:
        if part.kind == "text":
            parts.append({"type": "text", "text": part.text})
        elif part.kind == "image":
            with Image.open(part.path) as image:
                parts.append({"type": "image", "size": list(image.size), "digest": digest(image)})
        else:
            parts.append({"type": "video", "name": part.path.name})
    return parts


def excerpt(parts: list[dict], width: int = 70) -> str:
    """A short readable view of a message: one line per part."""
    lines = []
    for part in parts:
        if part["type"] == "text":
            text = part["text"].replace("\n", " ")
            lines.append(f"  [text] {text[:width]}{'...' if len(text) > width else ''}")
        elif part["type"] == "image":
            lines.append(f"  [image] {part.get('size', '')} {part.get('digest', part.get('url', ''))}")
        else:
            lines.append(f"  [{part['type']}] {part.get('name') or part.get('url')}")
    return "\n".join(lines)


def report(name: str, lines: list[str]) -> None:
    """Every line prefixed with [name] (the driver shows only such lines while a check runs)."""
    print("\n".join(f"[{name}] {line}" for entry in lines for line in entry.splitlines()), flush=True)


def main_guard(name: str, run) -> None:
    try:
        run()
    except CheckFailed as failure:
        print(f"[{name}] FAILED: {failure}", flush=True)
        sys.exit(1)


def dump(path: Path, value) -> None:
    Path(path).write_text(json.dumps(value, indent=1))
