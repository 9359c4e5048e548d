"""Hostile structures a caller can build in Python but no JSON file can hold (issue 19 item 1): ints
too large for a float or for `str()`, nesting past the interpreter's recursion limit (the record
nested in itself, self-similar, or one value wrapped thousands of times), and cycles. The fuzz
tests draw a base record, a path into it and a kind, then build the hostile record here (Hypothesis
never draws or prints the structure itself: its repr would fail)."""

from __future__ import annotations

import sys

from foldsim.eval.answers import MAX_DEPTH, MAX_DIGITS

RECURSION = sys.getrecursionlimit()
#: just over the digit cap, over a float, over a float and negative, over a double's exponent, over str()'s digit limit
HUGE_INTS = (10 ** (MAX_DIGITS + 1), 10 ** 400, -(10 ** 400), 2 ** 1024, 10 ** 5000)
#: nesting depths: just over the parser's cap, past the recursion limit, far past it
DEPTHS = (MAX_DEPTH + 1, RECURSION + 50, 3 * RECURSION)
KINDS = ("huge", "huge_key", "self_nested", "wrapped", "cycle_root", "cycle_parent", "cycle_pair", "fanout")
#: the kinds that make a structure no JSON text can be: the parser must refuse these wherever they are
REFUSED = KINDS


def paths(value: object, prefix: tuple = ()) -> list[tuple]:
    """Every path into dicts and lists (root excluded), plus a new key "x" in every dict: a hostile
    value can sit anywhere, in a field the parser reads or in one it never looks at."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        found.append((*prefix, "x"))
        for key, inner in value.items():
            found += paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += paths(inner, (*prefix, index))
    return found


def set_at(root: object, path: tuple, make) -> object:
    """A copy of `root` whose containers along `path` are fresh shallow copies (everything else
    shared), with the value at `path` replaced by make(new_root, parent, old)."""
    new_root = _copy(root)
    parent = new_root
    for key in path[:-1]:
        child = _copy(parent[key])
        parent[key] = child
        parent = child
    key = path[-1]
    old = parent[key] if (isinstance(parent, dict) and key in parent) or isinstance(parent, list) else None
    parent[key] = make(new_root, parent, old)
    return new_root


def _copy(value: object) -> object:
    return dict(value) if isinstance(value, dict) else list(value) if isinstance(value, list) else value


def hostile(root: object, path: tuple, kind: str, choice: int) -> object:
    """`root` with a hostile value of `kind` at `path` (`choice` picks the int or the depth)."""
    if kind == "huge":
        number = HUGE_INTS[choice % len(HUGE_INTS)]
        return set_at(root, path, lambda r, p, old: number)
    if kind == "huge_key":  # an int key (json.dumps writes it as a string; str() of 10**5000 fails)
        number = HUGE_INTS[choice % len(HUGE_INTS)]
        return set_at(root, path, lambda r, p, old: {number: old})
    depth = DEPTHS[choice % len(DEPTHS)]
    if kind == "self_nested":  # the record inside itself at `path`, again and again: self-similar nesting
        record = root
        for _ in range(depth // len(path) + 1):
            inner = record
            record = set_at(root, path, lambda r, p, old, inner=inner: inner)
        return record
    if kind == "wrapped":  # the value at `path` inside `depth` alternating lists and answer objects
        def wrap(r, p, old):
            value = old
            for level in range(depth):
                value = [value] if level % 2 else {"resultHoles": value, "holes": value}
            return value
        return set_at(root, path, wrap)
    if kind == "cycle_root":
        return set_at(root, path, lambda r, p, old: r)
    if kind == "cycle_parent":
        return set_at(root, path, lambda r, p, old: p)
    if kind == "cycle_pair":  # a list holding an answer object that holds the list
        def pair(r, p, old):
            holes: list = [old]
            holes.append({"resultHoles": holes, "holes": holes, "location": holes})
            return holes
        return set_at(root, path, pair)
    if kind == "fanout":  # 24 + choice levels of [x, x]: within the depth cap, but 2**24+ values written out
        def fan(r, p, old):
            value = old
            for _ in range(24 + choice):
                value = [value, value]
            return value
        return set_at(root, path, fan)
    raise ValueError(kind)


def depth_of(value: object, limit: int) -> int:
    """Nesting depth of dicts and lists, counted up to `limit` + 1 (cycles reach it), no recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            depth += 1
            if depth > limit:
                return depth
            deepest = max(deepest, depth)
            stack.extend((v, depth) for v in (node.values() if isinstance(node, dict) else node))
    return deepest
