"""The two pictures of docs/nets.md ("Pictures and motion"): a flat net and one view of its cube.

    .venv/bin/python tools/net_pictures.py          # writes docs/net-flat.png and docs/net-cube.png
    .venv/bin/python tools/net_pictures.py --check  # exit 1 when either differs from a fresh drawing

tests/test_net_render.py runs the check, so the pictures on the page are what the code draws.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from foldsim.nets import Pattern, make_net, net_from_rows  # noqa: E402
from foldsim.render.images import png_bytes  # noqa: E402
from foldsim.render.net_images import flat_net_image, net_cube_view  # noqa: E402

DOCS = ROOT / "docs"
#: the page's net: the cross, its faces in every turn, two of them mirrored
PATTERNS = (Pattern(0), Pattern(1), Pattern(0, True), Pattern(2), Pattern(3), Pattern(1, True))
#: the page's view: side -x (face 2) in front, turned a quarter
ORIENTATION = 5


def pictures() -> dict[Path, bytes]:
    """The pictures' paths and their PNG bytes."""
    base = net_from_rows([".1..", "2345", ".6.."])
    net = make_net(base.cells, base.labels, PATTERNS, hinges=base.hinges)
    return {DOCS / "net-flat.png": png_bytes(flat_net_image(net, 48)),
            DOCS / "net-cube.png": png_bytes(net_cube_view(net, ORIENTATION, 72))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    stale = []
    for path, data in pictures().items():
        if args.check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(path.relative_to(ROOT).as_posix())
        else:
            path.write_bytes(data)
            print(f"wrote {path.relative_to(ROOT)} ({len(data)} bytes)")
    for name in stale:
        print(f"stale: {name} (run: .venv/bin/python tools/net_pictures.py)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
