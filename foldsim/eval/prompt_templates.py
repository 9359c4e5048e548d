"""Prompt templates: the task files (`<task>.toml`: which records a task takes, its answer keys) and
the template files (`<task>_<modality>.txt`, with `{{view}}` tokens, `{{> fragment}}` includes and
`{{# comments}}`), found in a `--templates` folder before the built-ins (foldsim/eval/templates/) and
compiled once; foldsim.eval.prompts fills them with an item's views.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError

MODALITIES = ("text", "images", "frames", "video")
BUILTIN_TEMPLATES = Path(__file__).with_name("templates")
MAX_INCLUDE_DEPTH = 8

_TOKEN = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_COMMENT_LINE = re.compile(r"^[ \t]*\{\{#.*?\}\}[ \t]*(?:\r?\n|$)", re.MULTILINE | re.DOTALL)
_VIEW_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)?")
_FRAGMENT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


class TemplateError(InputError):
    """A template or task file that cannot be used (unknown view, missing file, a view that would
    show the answer): a usage error, raised before any item is built."""


@dataclass(frozen=True)
class TaskSpec:
    """What a task is (from `<task>.toml`): its scorer, the record fields that are its answer
    (never shown), and whether its items are `_mod` records shown with their original."""

    name: str
    description: str = ""
    score: str | None = None
    answer_fields: frozenset[str] = frozenset()
    pairs: bool = False
    source: str = ""


@dataclass(frozen=True)
class Templates:
    """Where template and task files are found: `folder` first (if given), then the built-ins."""

    folder: Path | None = None

    def folders(self) -> list[Path]:
        return [f for f in (self.folder, BUILTIN_TEMPLATES) if f is not None]

    def find(self, name: str) -> Path | None:
        for folder in self.folders():
            if (folder / name).is_file():
                return folder / name
        return None

    def read(self, name: str) -> tuple[str, Path]:
        path = self.find(name)
        if path is None:
            where = " or ".join(str(f) for f in self.folders())
            raise TemplateError(f"no file {name} in {where}", item="templates")
        try:
            return path.read_text(encoding="utf-8"), path
        except (OSError, UnicodeDecodeError) as err:
            raise TemplateError(f"cannot read: {getattr(err, 'strerror', None) or err}", item=str(path)) from None

    def tasks(self) -> list[str]:
        """Every task with a `<task>.toml` in either folder."""
        names = {p.stem for folder in self.folders() if folder.is_dir() for p in folder.glob("*.toml")}
        return sorted(names)

    def modalities(self, task: str) -> list[str]:
        """The modalities a task has a template for."""
        return [m for m in MODALITIES if self.find(template_name(task, m)) is not None]

    def task(self, name: str) -> TaskSpec:
        if not _FRAGMENT_NAME.fullmatch(name) or self.find(f"{name}.toml") is None:
            raise TemplateError(f"unknown task {name!r} (expected one of {', '.join(self.tasks())})", field="task")
        text, path = self.read(f"{name}.toml")
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise TemplateError(f"invalid TOML: {err}", item=str(path)) from None
        return task_spec(name, data, str(path))

    def fingerprint(self, task: str, modality: str) -> str:
        """A hash of every file the task's template for `modality` uses (task file, template,
        fragments): two runs with the same fingerprint showed the same wording."""
        import hashlib

        digest = hashlib.sha256()
        names = [f"{task}.toml", template_name(task, modality)]
        names += sorted(compile_template(self, template_name(task, modality)).fragments)
        for name in names:
            text, _ = self.read(name)
            digest.update(name.encode() + b"\0" + text.encode() + b"\0")
        return digest.hexdigest()[:16]


def template_name(task: str, modality: str) -> str:
    return f"{task}.{modality}.txt"


def task_spec(name: str, data: dict, source: str) -> TaskSpec:
    """A TaskSpec from a parsed task file; TemplateError names the file and key when a value has
    the wrong type."""
    def typed(key: str, kind: type, default):
        value = data.get(key, default)
        if not isinstance(value, kind) or (kind is list and not all(isinstance(v, str) for v in value)):
            raise TemplateError(f"must be {kind.__name__}{' of strings' if kind is list else ''}", item=source, field=key)
        return value

    unknown = sorted(set(data) - {"description", "score", "answer_fields", "pairs"})
    if unknown:
        raise TemplateError(f"unknown key {unknown[0]!r} (expected description, score, answer_fields, pairs)", item=source)
    score = data.get("score")
    if score is not None and not isinstance(score, str):
        raise TemplateError("must be a string", item=source, field="score")
    return TaskSpec(name, typed("description", str, ""), score, frozenset(typed("answer_fields", list, [])),
                    typed("pairs", bool, False), source)


# --------------------------------------------------------------------------------------------------
# compiling templates


@dataclass(frozen=True)
class Compiled:
    """A template as text and view segments, fragments included; `fragments` names the fragment
    files it used."""

    segments: tuple[tuple[str, str], ...]  # ("text", literal) or ("view", name)
    fragments: frozenset[str] = frozenset()

    @property
    def views(self) -> list[str]:
        return [value for kind, value in self.segments if kind == "view"]


def compile_template(templates: Templates, name: str, _stack: tuple[str, ...] = ()) -> Compiled:
    """Parse a template file into segments, expanding `{{> fragment}}` includes recursively."""
    if name in _stack:
        raise TemplateError(f"includes itself ({' -> '.join([*_stack, name])})", item=name)
    if len(_stack) > MAX_INCLUDE_DEPTH:
        raise TemplateError(f"includes nested deeper than {MAX_INCLUDE_DEPTH}", item=name)
    text, path = templates.read(name)
    text = _COMMENT_LINE.sub("", text)
    if _stack:  # a fragment: its file's final line break belongs to the file, not to the text
        text = text.removesuffix("\n")
    segments: list[tuple[str, str]] = []
    fragments: set[str] = set()
    last = 0
    for match in _TOKEN.finditer(text):
        segments.append(("text", text[last : match.start()]))
        last = match.end()
        token = match.group(1).strip()
        if token.startswith("#"):
            continue
        if token.startswith(">"):
            fragment = fragment_file(templates, token[1:].strip(), path)
            included = compile_template(templates, fragment, (*_stack, name))
            segments += included.segments
            fragments |= {fragment, *included.fragments}
        elif _VIEW_NAME.fullmatch(token):
            segments.append(("view", token))
        else:
            raise TemplateError(f"cannot read placeholder {{{{{token}}}}} (expected a view name, "
                                "'> fragment' or '# comment')", item=str(path))
    segments.append(("text", text[last:]))
    return Compiled(tuple((k, v) for k, v in segments if k == "view" or v), frozenset(fragments))


def fragment_file(templates: Templates, name: str, where: Path) -> str:
    """The file a `{{> name}}` include means: `name`, `name.txt` or `_name.txt`, first found."""
    if not _FRAGMENT_NAME.fullmatch(name):
        raise TemplateError(f"bad fragment name {name!r}", item=str(where))
    for candidate in (name, f"{name}.txt", f"_{name}.txt"):
        if templates.find(candidate) is not None:
            return candidate
    raise TemplateError(f"no fragment {name!r} (looked for {name}.txt and _{name}.txt)", item=str(where))
