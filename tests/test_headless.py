"""Issue 28 item 14: the 3-D commands on a headless GPU server without the X11 libraries. pyrender's
import pulls pyglet's window code, which loads libX11 and libXrender; where they are missing (the
NVIDIA H100 server had libX11 but no libXrender) every 3-D command failed with `internal error:
AttributeError: 'NoneType' object has no attribute 'XRenderFindVisualFormat'`, even under
PYOPENGL_PLATFORM=egl. foldsim's one pyrender import gate (render/scene.py) now picks EGL and
headless pyglet itself.

The machine here has the X libraries, so a subprocess is made blind to them: a sitecustomize on
PYTHONPATH makes `ctypes.util.find_library` answer None and `ctypes.CDLL` raise OSError for them
(what pyglet's loader sees on such a server; LD_LIBRARY_PATH cannot hide system libraries). Each
case first proves the blindness breaks the old way of importing pyrender, then renders one tiny
item's 3-D frames through `render-item --frames --verbose` with neither PYOPENGL_PLATFORM nor
PYGLET_HEADLESS set."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from foldsim.sheets import Fold, Line, Punch, SheetItem, SheetSpec, item_to_record

ROOT = Path(__file__).resolve().parents[1]

#: the libraries a blinded subprocess cannot find or load, by file or library name (a regex on the
#: base name: "X11", "libXrender.so.1", ...)
HIDDEN = {
    "x-extensions": r"^(lib)?X(?!11)\w*(\.so.*)?$",  # libX11 present, libXrender & co. missing: the H100 server
    "all-x": r"^(lib)?X\w*(\.so.*)?$",  # no X library at all
}

BLIND = '''"""Test-only: this interpreter cannot find or load the libraries HIDE_LIBRARIES matches."""
import ctypes
import ctypes.util
import os
import re

_HIDDEN = re.compile(os.environ["HIDE_LIBRARIES"])


def _hidden(name):
    return name is not None and bool(_HIDDEN.match(os.path.basename(str(name))))


_find_library = ctypes.util.find_library
ctypes.util.find_library = lambda name: None if _hidden(name) else _find_library(name)
_cdll_init = ctypes.CDLL.__init__


def _blind_cdll_init(self, name, *args, **kwargs):
    if _hidden(name):
        raise OSError(f"{name}: cannot open shared object file: No such file or directory")
    _cdll_init(self, name, *args, **kwargs)


ctypes.CDLL.__init__ = _blind_cdll_init
'''

#: how foldsim imported pyrender before issue 28 (EGL for PyOpenGL, pyglet left to find X11), and how
#: that fails in each blind environment
OLD_IMPORT = "import os; os.environ.setdefault('PYOPENGL_PLATFORM', 'egl'); import pyrender"
OLD_FAILURE = {"x-extensions": "'NoneType' object has no attribute 'XRenderFindVisualFormat'",
               "all-x": 'Library "X11" not found'}


def blind_env(tmp_path: Path, hidden: str) -> dict[str, str]:
    """The environment of a subprocess blind to the `hidden` libraries, with neither
    PYOPENGL_PLATFORM nor PYGLET_HEADLESS set (foldsim must choose them itself). Checked: pyrender
    imported the old way fails in it (otherwise the blindness did not take and a test would pass
    on the old code too)."""
    site = tmp_path / "blind"
    site.mkdir()
    (site / "sitecustomize.py").write_text(BLIND)
    env = {k: v for k, v in os.environ.items() if k not in ("PYOPENGL_PLATFORM", "PYGLET_HEADLESS", "DISPLAY")}
    env["PYTHONPATH"] = os.pathsep.join([str(site), *filter(None, [env.get("PYTHONPATH")])])
    env["HIDE_LIBRARIES"] = HIDDEN[hidden]
    old = subprocess.run([sys.executable, "-c", OLD_IMPORT], env=env, cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)
    assert old.returncode != 0 and OLD_FAILURE[hidden] in old.stderr, old.stderr[-2000:]
    return env


def test_3d_frames_render_on_a_server_without_the_x_extension_libraries(tmp_path):
    """The H100 server's case: `render-item --frames` draws a tiny item's frames, and --verbose
    names the GL vendor, renderer and version it got."""
    env = blind_env(tmp_path, "x-extensions")
    item = SheetItem(SheetSpec(2, 2), (Fold(Line("V", at=1), moves="left"),), (Punch("3/2", "1/2"),), id="tiny")
    source = tmp_path / "items.json"
    source.write_text(json.dumps([item_to_record(item)]))
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "foldsim", "render-item", str(source), "--out", str(out), "--frames",
                          "--verbose", "--width", "32", "--height", "24", "--cadence", "smooth", "--fps", "1",
                          "--seconds-per-action", "1"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "internal error" not in run.stderr
    renderer = [line for line in run.stderr.splitlines() if line.startswith("note: 3-D renderer: egl: ")]
    assert len(renderer) == 1 and "OpenGL" in renderer[0], run.stderr
    frames = sorted(out.rglob("*.png"))
    assert frames and all(path.stat().st_size > 0 for path in frames), sorted(out.rglob("*"))


def test_the_renderer_starts_where_no_x_library_can_be_found(tmp_path):
    """No libX11 at all: foldsim's renderer module imports and opens an EGL context."""
    env = blind_env(tmp_path, "all-x")
    run = subprocess.run([sys.executable, "-c", "from foldsim.render.scene import gl_renderer; print(gl_renderer())"],
                         env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("egl: ") and "OpenGL" in run.stdout, run.stdout
