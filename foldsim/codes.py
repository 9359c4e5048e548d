"""Action codes: the terse form ("D1-F", "R-90"), the JSON form ({"foldType", "foldToFront"}) and
the kernel's integers (foldsim.kernels.actions), converted in one place."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .errors import InputError, describe
from .kernels import actions as A

_CODE_RE = re.compile(r"^(?:([HVD])([1-4])-([FB])|R-?(90|180|270))$")
_NAME_TO_TYPE = {name: i for i, name in enumerate(A.FOLD_NAMES)}


def parse_action(code: object) -> int:
    """Kernel int of a terse code. Case and surrounding whitespace are forgiven; `rotation-90` and
    `R90` are accepted for rotations. Anything else raises an InputError."""
    if not isinstance(code, str):
        raise InputError(f"action {describe(code)} is not a code string")
    text = re.sub(r"\s+", "", code).upper().replace("ROTATION-", "R-")
    match = _CODE_RE.match(text)
    # the pattern admits H3/H4/V3/V4, which are no fold type: they are unknown codes too
    if not match or (match[1] and f"{match[1]}{match[2]}" not in A.FOLD_TYPES):
        raise InputError(f"unknown action code {describe(code)}")
    axis, number, side, degrees = match.groups()
    if degrees:
        return A.rotation_action(int(degrees) // 90)
    fold_type = A.FOLD_TYPES.index(f"{axis}{number}")
    return A.fold_action(fold_type, side == "F")


def action_code(action: int) -> str:
    """Terse code of a kernel int (NOOP has none)."""
    if A.FIRST_FOLD_FRONT <= action < A.FIRST_ROTATION:
        return f"{A.FOLD_TYPES[(action - 1) % 8]}-{'F' if action < A.FIRST_FOLD_BACK else 'B'}"
    if action >= A.FIRST_ROTATION:
        return f"R-{90 * (action - A.FIRST_ROTATION + 1)}"
    raise ValueError("the no-op action has no code")


def canonical_code(code: object) -> str:
    """The canonical spelling of a code ("h1-f" -> "H1-F", "rotation-90" -> "R-90")."""
    return action_code(parse_action(code))


def parse_codes(codes: str | Iterable[str]) -> tuple[str, ...]:
    """Canonical codes from "D1-F,H1-F,R-90" (commas and/or spaces) or an iterable of codes."""
    if isinstance(codes, str):
        codes = [c for c in re.split(r"[,\s]+", codes) if c]
    out = []
    for i, code in enumerate(codes):
        try:
            out.append(canonical_code(code))
        except InputError as err:
            raise err.at(field_prefix=f"actions[{i}]") from None
    return tuple(out)


def code_of_entry(entry: object) -> str:
    """Terse code of a `foldingTypes` entry {"foldType": name, "foldToFront": bool}."""
    if not isinstance(entry, dict) or "foldType" not in entry:
        raise InputError("expected an object with foldType")
    name = entry["foldType"]
    if not isinstance(name, str):
        raise InputError(f"must be a string, got {describe(name)}", field="foldType")
    if name.startswith("rotation-"):
        try:
            return canonical_code(name)
        except InputError as err:
            raise err.at(field_prefix="foldType") from None
    if name not in _NAME_TO_TYPE:
        raise InputError(f"unknown foldType {describe(name)}", field="foldType")
    front = entry.get("foldToFront", True)
    if not isinstance(front, bool):
        raise InputError(f"foldToFront must be true or false, got {describe(front)}", field="foldToFront")
    return action_code(A.fold_action(_NAME_TO_TYPE[name], front))


def entry_of_code(code: str) -> dict:
    """The `foldingTypes` entry of a terse code (rotations carry foldToFront true, as in the data)."""
    action = parse_action(code)
    if action >= A.FIRST_ROTATION:
        return {"foldType": f"rotation-{90 * (action - A.FIRST_ROTATION + 1)}", "foldToFront": True}
    return {"foldType": A.FOLD_NAMES[(action - 1) % 8], "foldToFront": action < A.FIRST_FOLD_BACK}


def is_rotation(code: str) -> bool:
    return code.startswith("R-")


def pattern_of(codes: Iterable[str]) -> str:
    """The action pattern word over F (fold) and R (rotation), e.g. "FRF"."""
    return "".join("R" if is_rotation(c) else "F" for c in codes)
