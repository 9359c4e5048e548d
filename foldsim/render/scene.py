"""3-D scenes of the sheet for the animation: paper meshes with see-through holes, the crease, the camera.

Geometry comes in as positions already computed by `foldsim.kernels.motion` (sheet units, z toward
the viewer); this module only turns them into pyrender objects and pixels. Each face of the paper is
its own single-sided primitive (front: counter-clockwise in the flat sheet; back: the same triangles
with the opposite winding), so back-face culling shows whichever side faces the camera, in its own
colour, with no z-fighting between the two.

The paper is any flat triangle mesh (`SheetGeometry`): a `foldsim.mesh.TriangleSheet`'s
(`sheet_geometry`, e.g. MentalBlackboard's 32 triangles, passed in by the caller) or a general
item's mesh (`SheetGeometry.of_triangles`, centred cell units, see render/items.py); the hole
texture spans that sheet's rectangle.

Holes are real cut-outs. Triangles never overlap on the flat sheet, so one texture of the flat sheet
carries every hole: its alpha is 0 inside each hole on each layer the hole goes through (drawn at that
layer's flat place) and 255 elsewhere. Every paper vertex takes its flat-sheet position as texture
coordinate, so the texture rides on the paper through every motion, and fragments whose alpha falls
under `MASK_CUTOFF` are discarded: lower layers and the background show through the holes. Every
hole fits inside its own triangle (to within 0.012 sheet units), so no cut strays onto a neighbour
that lies elsewhere mid-fold.

Size (~600 lines): the pyrender import gate, the paper, crease and hole geometry and the camera are
one renderer's state; a split would pass its GL context between modules.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, ImageDraw


def _import_pyrender():
    """pyrender, set up for drawing offscreen on a machine with no display and perhaps no X11
    libraries (a GPU server): PyOpenGL on EGL unless PYOPENGL_PLATFORM names another platform, and
    on EGL pyglet in headless mode, chosen before pyrender's import pulls pyglet's window code (which
    otherwise loads libX11 and libXrender and, where they are missing, fails with `'NoneType' object
    has no attribute 'XRenderFindVisualFormat'`). The one place foldsim imports pyrender."""
    os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
    if os.environ["PYOPENGL_PLATFORM"] == "egl":
        import pyglet

        pyglet.options["headless"] = True
    import pyrender

    return pyrender


pyrender = _import_pyrender()

import trimesh  # noqa: E402
from OpenGL import GL  # noqa: E402
from pyrender.constants import GLTF, RenderFlags  # noqa: E402
from pyrender.shader_program import ShaderProgramCache  # noqa: E402

from ..kernels import motion as M  # noqa: E402
from ..kernels import state as S  # noqa: E402
from ..mesh import TriangleSheet  # noqa: E402
from ..trace import Trace  # noqa: E402
from . import shaders  # noqa: E402
from .shapes import Cut, hole_polygons  # noqa: E402

if TYPE_CHECKING:
    from .options import AnimationOptions

#: the paper's (front, back) materials
Look = tuple[pyrender.Material, pyrender.Material]


def _counter_clockwise(triangles: np.ndarray) -> np.ndarray:
    """The same triangles with vertices 1 and 2 swapped where they ran clockwise."""
    edge1, edge2 = triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0]
    clockwise = edge1[:, 0] * edge2[:, 1] - edge1[:, 1] * edge2[:, 0] < 0
    return np.where(clockwise[:, None, None], triangles[:, [0, 2, 1]], triangles)


TEXTURE_PIXELS = 1024  # a 4-cell side's hole texture: 256 texels per cell
MAX_TEXTURE_PIXELS = 2048  # a general sheet's texture side at most (fewer texels a cell on large sheets)
SUPERSAMPLE = 4  # holes are drawn this much finer and averaged down, so their edges stay smooth
MASK_CUTOFF = 0.5  # texture alpha under which the paper is cut away
CREASE_LIFT = M.LAYER_GAP / 2  # the crease line floats just above the paper that stays put
CREASE_RADIUS = 0.015
#: the line of pyrender 0.1.45's mesh.frag after which the alpha test goes (see `offscreen_renderer`)
_BASE_COLOUR_LINE = "base_color = base_color * srgb_to_linear(texture(material.base_color_texture, uv_0));\n"


@dataclass(frozen=True, eq=False)
class SheetGeometry:
    """The flat sheet the renderer dresses: its triangles (counter-clockwise, sheet units, y up) and
    the rectangle [low, low + size] its hole texture covers, `pixels` (width, height) texels.
    `crease_radius`: the crease rod's; None scales CREASE_RADIUS with the camera distance (general
    items, see `animation.sheet_renderer`)."""

    front: np.ndarray  # float32[T, 3, 2]
    low: tuple[float, float]
    size: tuple[float, float]
    pixels: tuple[int, int]
    crease_radius: float | None = None

    @classmethod
    def of_triangles(cls, triangles: np.ndarray, texels_per_unit: int | None = None) -> "SheetGeometry":
        """The geometry of flat triangles float[T, 3, 2] (any winding), its texture the triangles'
        bounding box at `texels_per_unit` (default: 256 a unit, at most MAX_TEXTURE_PIXELS a side)."""
        front = _counter_clockwise(np.asarray(triangles, np.float32))
        points = front.reshape(-1, 2).astype(np.float64)
        low, high = points.min(0), points.max(0)
        size = high - low
        per_unit = texels_per_unit or max(16, min(TEXTURE_PIXELS // 4, int(MAX_TEXTURE_PIXELS // size.max())))
        pixels = np.maximum(1, np.ceil(size * per_unit)).astype(int)
        return cls(front, (float(low[0]), float(low[1])), (float(size[0]), float(size[1])),
                   (int(pixels[0]), int(pixels[1])))

    @property
    def count(self) -> int:
        return len(self.front)

    @property
    def uv(self) -> np.ndarray:
        """float32[T, 3, 2]: texture coordinates of the front triangles' vertices (v up: pyrender
        uploads an image's first row as the texture's top)."""
        return ((self.front - np.float32(self.low)) / np.float32(self.size)).astype(np.float32)

    @property
    def back_order(self) -> np.ndarray:
        return np.arange(3 * self.count).reshape(self.count, 3)[:, [0, 2, 1]].ravel()

    def texel(self, points: np.ndarray, scale: int = 1) -> np.ndarray:
        """float[N, 2]: (column, row) of flat-sheet points in the texture drawn `scale` times finer
        (first row: the sheet's top edge; pixel centres at whole numbers)."""
        uv = (np.asarray(points, float) - self.low) / self.size
        return np.stack([uv[:, 0], 1 - uv[:, 1]], axis=1) * np.multiply(self.pixels, scale) - 0.5


@lru_cache(maxsize=8)
def sheet_geometry(sheet: TriangleSheet) -> SheetGeometry:
    """The geometry of a kernel-traced sheet (made once per sheet): its triangles, the texture its
    bounding box (a 4x4 sheet: [-2, 2]^2 at TEXTURE_PIXELS a side); the crease rod keeps
    CREASE_RADIUS at any camera distance, as MentalBlackboard's videos always had it."""
    return replace(SheetGeometry.of_triangles(sheet.triangles), crease_radius=CREASE_RADIUS)


def hole_cuts(trace: Trace, *, sheet: TriangleSheet) -> list[Cut]:
    """Every layer every initial hole goes through (SPEC §4), on the flat `sheet` (the one `trace`
    was folded on).

    A hole punched on grid position L of the final folded sheet meets each triangle t lying there;
    its outline, drawn around L's centroid in the final frame, is carried back to t's flat place by
    t's inverse placement, so it lands mirrored/turned exactly as the result hole is.
    """
    final = trace.sheet(len(trace.steps))
    on_grid = np.asarray(S.grid_index_of(final))
    linear = np.asarray(final.linear, np.float32)
    shift = np.asarray(final.shift, np.float32) / sheet.per_unit
    cuts = []
    for index, hole in enumerate(trace.config.holes):
        centre = sheet.centroids[hole.location - 1]
        polygons = hole_polygons(hole.shape, hole.size, hole.quarter, centre)
        ends = np.cumsum([1] + [len(polygon) for polygon in polygons])[:-1]  # the centre goes first
        layers = np.flatnonzero(on_grid == hole.location - 1)
        points = np.concatenate([centre[None], *polygons])
        flat = np.asarray(M.unplace(linear[layers, None], shift[layers, None], points[None]))  # [L, N, 2]
        cuts += [Cut(layer[0], tuple(np.split(layer, ends)[1:]), index) for layer in flat]
    return cuts


def hole_mask(cuts: list[Cut], growth: float, *, geometry: SheetGeometry,
              supersample: int = SUPERSAMPLE) -> np.ndarray:
    """uint8[height, width]: alpha of the flat sheet's texture (`geometry.pixels`), 0 inside every
    cut grown to `growth` of its size about its centre (the punch opening it), 255 elsewhere; the
    first row is the top edge.

    Each cut is drawn `supersample` times finer in a patch around it and averaged down into place
    (a cut is a few dozen texels wide, so this costs a fraction of drawing the whole sheet finely).
    """
    alpha = np.full(geometry.pixels[::-1], 255, np.uint8)
    limit = np.asarray(geometry.pixels)
    for cut in cuts:
        polygons = [geometry.texel(cut.centre + growth * (polygon - cut.centre), supersample)
                    for polygon in cut.polygons]
        points = np.concatenate(polygons)
        low = np.clip(np.floor(points.min(0) / supersample).astype(int) - 1, 0, limit)  # texels, (col, row)
        high = np.clip(np.ceil(points.max(0) / supersample).astype(int) + 2, 0, limit)
        if (high <= low).any():
            continue
        patch = Image.new("L", tuple((high - low) * supersample), 255)
        draw = ImageDraw.Draw(patch)
        for polygon in polygons:
            draw.polygon((polygon - low * supersample).ravel().tolist(), fill=0)
        region = alpha[low[1]:high[1], low[0]:high[0]]
        np.minimum(region, np.asarray(patch.reduce(supersample)), out=region)
    return alpha


def face_normals(triangles: np.ndarray) -> np.ndarray:
    """float[T, 3]: unit front normals of triangles float[T, 3, 3] (vertex order as a geometry's front)."""
    normal = np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
    return normal / np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-9)


def _material(colour: tuple[int, int, int], double_sided: bool = False,
              holes: pyrender.Texture | None = None) -> pyrender.MetallicRoughnessMaterial:
    """A matte material that renders as `colour` (sRGB) where fully lit: pyrender's shader takes
    linear colours and gamma-encodes its output. `holes` (white, alpha 0 in the holes) cuts it."""
    rgba = [(c / 255) ** 2.2 for c in colour] + [1.0]
    masked = {} if holes is None else {"baseColorTexture": holes, "alphaMode": "MASK", "alphaCutoff": MASK_CUTOFF}
    return pyrender.MetallicRoughnessMaterial(baseColorFactor=rgba, metallicFactor=0.0, roughnessFactor=1.0,
                                              doubleSided=double_sided, **masked)


def paper_materials(alpha: np.ndarray | None, opts: AnimationOptions, channels: str = "RGBA") -> Look:
    """Front and back materials of the paper, cut where `alpha` (a `hole_mask`) is 0; None: uncut.
    The texture is white with that alpha ("RGBA", what pyrender's shader reads), or the mask alone in
    its red channel ("R", a quarter of the upload, read by `shaders.FRAGMENT`)."""
    if alpha is None:
        return _material(opts.front_colour), _material(opts.back_colour)
    if channels == "R":
        source = alpha
    else:
        source = np.dstack([np.full((*alpha.shape, 3), 255, np.uint8), alpha])
    return textured_materials(source, opts, channels)


def textured_materials(source: np.ndarray, opts: AnimationOptions, channels: str) -> Look:
    """Front and back materials of the paper (`opts`' colours) sharing one texture of the flat sheet,
    `source` (uint8, first row the top edge; `channels` "R" or "RGBA"), cut where the renderer's
    fragment shader reads an alpha under MASK_CUTOFF: the hole mask (`paper_materials`), or a
    family look's paint whose RGB `shaders.PAINTED_FRAGMENT` multiplies the lit paper by."""
    clamp = pyrender.Sampler(wrapS=GLTF.CLAMP_TO_EDGE, wrapT=GLTF.CLAMP_TO_EDGE)  # no holes wrapping round
    texture = pyrender.Texture(source=source, source_channels=channels, sampler=clamp)
    return _material(opts.front_colour, holes=texture), _material(opts.back_colour, holes=texture)


#: which holes a frame shows: (how many initial holes are punched so far, their growth in [0, 1])
HoleState = tuple[int, float]


def paper_looks(cuts: list[Cut], states: list[HoleState], opts: AnimationOptions,
                channels: str = "RGBA", *, geometry: SheetGeometry) -> dict[HoleState, Look]:
    """Paper materials for each hole state of a video (growth 0 or no hole punched: uncut), so frames
    that share a state share one texture, uploaded once; the textures cover `geometry`'s sheet."""
    looks = {}
    for opened, growth in sorted(set(states)):
        cut = [c for c in cuts if c.hole < opened]
        mask = hole_mask(cut, growth, geometry=geometry) if growth > 0 and cut else None
        looks[opened, growth] = paper_materials(mask, opts, channels)
    return looks


def paper_mesh(triangles: np.ndarray, materials: Look, *, geometry: SheetGeometry) -> pyrender.Mesh:
    """The sheet (`triangles` float[T, 3, 3], vertex order as `geometry.front`): a front primitive
    and a back one (reversed winding, reversed normals), textured by their flat-sheet place."""
    vertices, uv, back_order = triangles.reshape(-1, 3), geometry.uv.reshape(-1, 2), geometry.back_order
    normals = np.repeat(face_normals(triangles), 3, axis=0)
    front = pyrender.Primitive(positions=vertices, normals=normals, texcoord_0=uv, material=materials[0])
    back = pyrender.Primitive(positions=vertices[back_order], normals=-normals, texcoord_0=uv[back_order],
                              material=materials[1])
    return pyrender.Mesh([front, back])


def crease_mesh(ends: np.ndarray, opts: AnimationOptions, radius: float = CREASE_RADIUS) -> pyrender.Mesh:
    """A thin dark rod along the crease, `ends` float[2, 3] (or one rod per segment, float[K, 2, 3]:
    a crease over paper with gaps)."""
    ends = np.asarray(ends)
    if ends.ndim == 2:
        rod = trimesh.creation.cylinder(radius=radius, segment=ends, sections=8)
    else:
        rod = trimesh.util.concatenate([trimesh.creation.cylinder(radius=radius, segment=pair, sections=8)
                                        for pair in ends])
    return pyrender.Mesh.from_trimesh(rod, material=_material(opts.crease_colour, double_sided=True), smooth=False)


def _masking_shaders(folder: Path) -> Path:
    """`folder` filled with pyrender's shaders, its mesh shader discarding texels under MASK_CUTOFF."""
    shutil.copytree(Path(pyrender.__file__).parent / "shaders", folder, dirs_exist_ok=True)
    mesh = folder / "mesh.frag"
    text = mesh.read_text()
    if text.count(_BASE_COLOUR_LINE) != 1:
        raise RuntimeError(f"pyrender's {mesh.name} changed: cannot add the alpha test for see-through holes")
    alpha_test = f"    if (base_color.a < {MASK_CUTOFF}) discard;\n"
    mesh.write_text(text.replace(_BASE_COLOUR_LINE, _BASE_COLOUR_LINE + alpha_test))
    return folder


@contextmanager
def offscreen_renderer(opts: AnimationOptions) -> Iterator[pyrender.OffscreenRenderer]:
    """An offscreen renderer that honours alphaMode "MASK", freed on exit; it draws `build_scene`'s
    scenes (an `OrderedRenderer`).

    pyrender 0.1.45 accepts a material's alphaMode but its shader never discards a fragment, so a
    masked texel would still draw paper; this renderer compiles its shaders from a patched copy.
    """
    renderer = pyrender.OffscreenRenderer(opts.width, opts.height)  # its context is current
    try:
        with tempfile.TemporaryDirectory(prefix="foldsim-shaders-") as folder:
            renderer._renderer.delete()
            renderer._renderer = OrderedRenderer(opts.width, opts.height)  # no public hook for the class either
            # pyrender has no public hook for its shader folder; its Renderer reads this cache lazily
            renderer._renderer._program_cache = ShaderProgramCache(shader_dir=_masking_shaders(Path(folder)))
            yield renderer
    finally:
        renderer.delete()


def gl_renderer() -> str:
    """Which OpenGL implementation draws the 3-D media, as one line (the EGL device picked, a GPU's
    or Mesa's llvmpipe on the CPU, is otherwise invisible): the platform, GL_VENDOR, GL_RENDERER and
    GL_VERSION of a 1x1 offscreen context, made and freed here."""
    offscreen = pyrender.OffscreenRenderer(1, 1)  # its context is current
    try:
        names = [GL.glGetString(name) for name in (GL.GL_VENDOR, GL.GL_RENDERER, GL.GL_VERSION)]
    finally:
        offscreen.delete()
    vendor, renderer, version = (name.decode(errors="replace") if name else "unknown" for name in names)
    return f"{os.environ['PYOPENGL_PLATFORM']}: {vendor}, {renderer}, OpenGL {version}"


def camera_pose(opts: AnimationOptions) -> np.ndarray:
    """float[4, 4] camera-to-world pose looking at the sheet centre.

    Elevation is the angle above the sheet's plane (90 = straight overhead); azimuth turns the
    viewer about the sheet's normal (0 = standing at the sheet's bottom edge, so up reads as up).
    """
    elevation, azimuth = np.radians(opts.camera_elevation), np.radians(opts.camera_azimuth)
    ground = np.array([np.sin(azimuth), -np.cos(azimuth), 0.0])  # from the centre toward the viewer
    backward = np.cos(elevation) * ground + np.array([0.0, 0.0, np.sin(elevation)])
    up = -np.sin(elevation) * ground + np.array([0.0, 0.0, np.cos(elevation)])
    pose = np.eye(4)
    pose[:3, 0], pose[:3, 1], pose[:3, 2] = np.cross(up, backward), up, backward
    pose[:3, 3] = opts.camera_distance * backward
    return pose


def camera(opts: AnimationOptions) -> pyrender.PerspectiveCamera:
    return pyrender.PerspectiveCamera(yfov=np.radians(opts.camera_fov), znear=0.5,
                                      zfar=4 * opts.camera_distance, aspectRatio=opts.width / opts.height)


def view_projection(opts: AnimationOptions) -> np.ndarray:
    """float[4, 4]: world -> clip coordinates of the camera."""
    return camera(opts).get_projection_matrix(opts.width, opts.height) @ np.linalg.inv(camera_pose(opts))


def project_with(matrix: np.ndarray, points: np.ndarray, opts: AnimationOptions) -> np.ndarray:
    """float[N, 2]: pixel (column, row) of 3-D points float[N, 3] through a `view_projection`."""
    clip = matrix @ np.c_[points, np.ones(len(points))].T
    ndc = clip[:2] / clip[3]
    return np.stack([(ndc[0] + 1) / 2 * opts.width, (1 - ndc[1]) / 2 * opts.height], axis=1)


def project(points: np.ndarray, opts: AnimationOptions) -> np.ndarray:
    """float[N, 2]: pixel (column, row) of 3-D points float[N, 3] in the rendered frame."""
    return project_with(view_projection(opts), points, opts)


class OrderedScene(pyrender.Scene):
    """A pyrender scene that remembers the order its nodes were added in, so `OrderedRenderer` can
    draw its meshes in an order that is the same in every process (pyrender keeps nodes in sets,
    which iterate in an order set by the objects' memory addresses)."""

    def __init__(self, *args, **kwargs):
        self._added: dict[pyrender.Node, int] = {}
        self._count = 0
        super().__init__(*args, **kwargs)

    def add_node(self, node: pyrender.Node, parent_node: pyrender.Node | None = None) -> None:
        super().add_node(node, parent_node)
        self._added[node] = self._count
        self._count += 1

    def _remove_node(self, node: pyrender.Node) -> None:  # pyrender's removal of a node and, in turn, its children
        super()._remove_node(node)
        self._added.pop(node, None)

    def rank(self, node: pyrender.Node) -> int:
        """The node's place in the order of adding (0 first; later adds get higher ranks)."""
        return self._added[node]


class OrderedRenderer(pyrender.Renderer):
    """pyrender's renderer, drawing an `OrderedScene`'s meshes in a fixed order: as pyrender does,
    the opaque meshes, then the transparent ones, each farthest pose first, but meshes at equal
    distance (the paper and the crease rod both sit at the origin) in the order they were added.

    pyrender takes them from the scene's set of mesh nodes, ordered by the nodes' memory addresses,
    and sorts stably by distance only, so the paper and the rod came in an order that varied from
    process to process (PYTHONHASHSEED does not touch object hashes). Where the rod meets the paper,
    a few samples get the same 24-bit depth from both, and the depth test (GL_LESS) keeps whichever
    was drawn first: a row of pixels along the crease (or a single one) flipped between two colours
    from run to run. Drawn in a fixed order, equal depths always go to the paper (added first)."""

    def _sorted_mesh_nodes(self, scene: OrderedScene) -> list[pyrender.Node]:
        camera = scene.get_pose(scene.main_camera_node)[:3, 3]

        def key(node: pyrender.Node) -> tuple[bool, float, int]:
            distance = np.linalg.norm(scene.get_pose(node)[:3, 3] - camera)
            return node.mesh.is_transparent, -distance, scene.rank(node)

        return sorted(scene.mesh_nodes, key=key)


def build_scene(meshes: list[pyrender.Mesh], opts: AnimationOptions) -> OrderedScene:
    """A scene with `meshes`, the camera and a light at the camera (faces turned away get darker);
    an `OrderedRenderer` draws the meshes at equal distance in the list's order."""
    ambient = [opts.ambient_light] * 3
    scene = OrderedScene(bg_color=[c / 255 for c in opts.background_colour] + [1.0], ambient_light=ambient)
    for mesh in meshes:
        scene.add(mesh)
    pose = camera_pose(opts)
    scene.add(camera(opts), pose=pose)
    scene.add(pyrender.DirectionalLight(color=np.ones(3), intensity=opts.light_intensity), pose=pose)
    return scene


# ---------------------------------------------------------------------------------------------
# The fast path: one renderer, scene, set of materials and textures per item; only vertices move


def _fast_shaders(folder: Path, fragment: str = shaders.FRAGMENT) -> Path:
    """`folder` filled with pyrender's shaders, its mesh shaders replaced by `shaders.VERTEX` and
    `fragment` (a `shaders.fragment` variant; same uniforms and lighting as pyrender's, lit per
    vertex; see render/shaders.py)."""
    shutil.copytree(Path(pyrender.__file__).parent / "shaders", folder, dirs_exist_ok=True)
    (folder / "mesh.vert").write_text(shaders.VERTEX)
    (folder / "mesh.frag").write_text(fragment.replace("MASK_CUTOFF", repr(MASK_CUTOFF)))
    return folder


class _ColourRenderer(OrderedRenderer):
    """An `OrderedRenderer`, reading back only the colour buffer, and of it only `region` (x, y,
    width, height in OpenGL's bottom-left pixel coordinates): pyrender also reads and linearises the
    depth buffer on every frame, which the animation never uses, and resolving the multisampled
    buffer costs as much as drawing the sheet, so only the part the sheet covers is resolved."""

    region: tuple[int, int, int, int] = (0, 0, 0, 0)

    def _read_main_framebuffer(self, scene, flags):
        """The resolved region as h x w x 3 uint8, bottom row first (OpenGL's order)."""
        x, y, width, height = self.region
        rgb = np.empty((height, width, 3), np.uint8)
        GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, self._main_fb_ms)
        GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, self._main_fb)
        GL.glBlitFramebuffer(x, y, x + width, y + height, x, y, x + width, y + height, GL.GL_COLOR_BUFFER_BIT,
                             GL.GL_LINEAR)
        GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, self._main_fb)
        GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 1)  # rows of 3 * width bytes, unpadded
        GL.glReadPixels(x, y, width, height, GL.GL_RGB, GL.GL_UNSIGNED_BYTE, rgb)
        return rgb


#: per vertex, as pyrender's Primitive lays out its vertex buffer: position, normal, texture coordinate
_VERTEX_FLOATS = 3 + 3 + 2
#: pixels around the projected sheet that are drawn too: multisampled edges and the crease rod's radius
COVER_MARGIN = 4


class SheetRenderer:
    """Every frame of an item through one offscreen renderer and one scene: the paper is one mesh
    (a front and a back primitive) whose vertex buffers are overwritten in place each frame, the
    crease is a node shown or hidden, the materials (one per hole state, each with its texture)
    are made once and swapped, and only the colour buffer is read back.

    Use it as a context manager; `frame()` returns H x W x 3 uint8 (a new array per call).

    `fragment`: the paper's (and crease's) fragment shader, a variant from render/shaders.py:
    `shaders.FRAGMENT` (default; the looks' textures hold the hole mask in their red channel,
    `paper_materials(..., channels="R")`) or `shaders.PAINTED_FRAGMENT` (RGBA textures whose RGB
    paints the lit paper and whose alpha cuts it: a family look, render/items.py).
    """

    def __init__(self, opts: AnimationOptions, geometry: SheetGeometry, crease_radius: float = CREASE_RADIUS, *,
                 fragment: str = shaders.FRAGMENT):
        self.opts = opts
        self.crease_radius = crease_radius
        self.fragment = fragment
        self._offscreen: pyrender.OffscreenRenderer | None = None
        self._shader_dir: tempfile.TemporaryDirectory | None = None
        front, uv_all, back_order = geometry.front, geometry.uv, geometry.back_order
        self._back_order = back_order
        vertices = front.reshape(-1, 2)
        flat = np.c_[vertices, np.zeros(len(vertices))].astype(np.float32)
        up = np.tile(np.float32([0, 0, 1]), (len(flat), 1))
        uv = uv_all.reshape(-1, 2).astype(np.float32)
        plain = paper_materials(None, opts)
        self._front = pyrender.Primitive(positions=flat, normals=up, texcoord_0=uv, material=plain[0])
        self._back = pyrender.Primitive(positions=flat[back_order], normals=-up, texcoord_0=uv[back_order],
                                        material=plain[1])
        # the interleaved vertex buffers, texture coordinates filled once
        self._front_data = np.zeros((len(flat), _VERTEX_FLOATS), np.float32)
        self._back_data = np.zeros((len(flat), _VERTEX_FLOATS), np.float32)
        self._front_data[:, 6:] = uv
        self._back_data[:, 6:] = uv[back_order]
        ambient = [opts.ambient_light] * 3
        # the paper is added first, so it is drawn before the crease rod (`OrderedRenderer`)
        self.scene = OrderedScene(bg_color=[c / 255 for c in opts.background_colour] + [1.0], ambient_light=ambient)
        self.scene.add(pyrender.Mesh([self._front, self._back]))
        pose = camera_pose(opts)
        self._camera = self.scene.add(camera(opts), pose=pose)
        self._light = self.scene.add(pyrender.DirectionalLight(color=np.ones(3), intensity=opts.light_intensity),
                                     pose=pose)
        self._crease: pyrender.Node | None = None
        self._crease_ends: np.ndarray | None = None
        #: what a frame shows where nothing is drawn: the clear colour (8-bit, exactly)
        self._background = np.empty((opts.height, opts.width, 3), np.uint8)
        self._background[...] = opts.background_colour
        self._projection = view_projection(opts)

    def __enter__(self) -> "SheetRenderer":
        self._offscreen = pyrender.OffscreenRenderer(self.opts.width, self.opts.height)  # its context is current
        try:
            self._shader_dir = tempfile.TemporaryDirectory(prefix="foldsim-shaders-")
            renderer = _ColourRenderer(self.opts.width, self.opts.height)
            folder = _fast_shaders(Path(self._shader_dir.name), self.fragment)
            renderer._program_cache = ShaderProgramCache(shader_dir=folder)
            self._offscreen._renderer.delete()
            self._offscreen._renderer = renderer  # pyrender has no public hook for its renderer class
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        """Free the GL objects and the context (not via OffscreenRenderer.delete, whose full garbage
        collection costs ~60 ms per item)."""
        offscreen, self._offscreen = self._offscreen, None
        if offscreen is not None and offscreen._platform is not None:
            offscreen._platform.make_current()
            offscreen._renderer.delete()
            offscreen._platform.delete_context()
            offscreen._renderer = offscreen._platform = None
        if self._shader_dir is not None:
            self._shader_dir.cleanup()
            self._shader_dir = None

    def look_at(self, opts: AnimationOptions) -> None:
        """Move the camera (and the light, which sits at the camera) to `opts`'s viewpoint."""
        pose = camera_pose(opts)
        self.scene.set_pose(self._camera, pose)
        self.scene.set_pose(self._light, pose)
        self._projection = view_projection(opts)

    def set_paper(self, triangles: np.ndarray, look: Look) -> None:
        """Place the sheet (`triangles` float[T, 3, 3], vertex order as the geometry's front
        triangles) and dress it."""
        vertices = triangles.reshape(-1, 3)
        normals = np.repeat(face_normals(triangles), 3, axis=0)
        self._front_data[:, :3], self._front_data[:, 3:6] = vertices, normals
        self._back_data[:, :3], self._back_data[:, 3:6] = vertices[self._back_order], -normals[self._back_order]
        self._front.material, self._back.material = look
        for primitive, data in ((self._front, self._front_data), (self._back, self._back_data)):
            if primitive._vaid is None:  # not uploaded yet: the first render uploads these
                primitive.positions, primitive.normals = data[:, :3].copy(), data[:, 3:6].copy()
            else:  # overwrite the uploaded vertex buffer (pyrender keeps it as the primitive's first)
                GL.glBindBuffer(GL.GL_ARRAY_BUFFER, primitive._buffers[0])
                GL.glBufferSubData(GL.GL_ARRAY_BUFFER, 0, data.nbytes, data)
                GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)

    def set_crease(self, ends: np.ndarray | None) -> None:
        """Show the crease rod between `ends` float[2, 3] (or rods, float[K, 2, 3]; rebuilt only when
        they change), or hide it."""
        if ends is not None and self._crease_ends is not None and np.array_equal(ends, self._crease_ends):
            return
        if self._crease is not None:
            self.scene.remove_node(self._crease)
            self._crease, self._crease_ends = None, None
        if ends is not None:
            self._crease = self.scene.add(crease_mesh(ends, self.opts, self.crease_radius))
            self._crease_ends = np.array(ends)

    def covered(self) -> tuple[int, int, int, int]:
        """(column, row, width, height), top-left origin: the pixels the sheet and the crease can
        touch, their projected bounding box grown by COVER_MARGIN, clipped to the frame."""
        points = self._front_data[:, :3]
        if self._crease_ends is not None:
            points = np.concatenate([points, self._crease_ends.reshape(-1, 3)])
        pixels = project_with(self._projection, points, self.opts)
        low = np.floor(pixels.min(0)).astype(int) - COVER_MARGIN
        high = np.ceil(pixels.max(0)).astype(int) + COVER_MARGIN + 1
        col0, row0 = np.maximum(low, 0)
        col1, row1 = np.minimum(high, [self.opts.width, self.opts.height])
        return int(col0), int(row0), max(0, int(col1 - col0)), max(0, int(row1 - row0))

    def frame(self) -> np.ndarray:
        """Render the scene as it stands: H x W x 3 uint8, top row first. Only the covered box is
        cleared, drawn and resolved (a scissor box); the rest of the frame is the background."""
        frame = self._background.copy()
        col, row, width, height = self.covered()
        if width and height:
            y = self.opts.height - row - height  # OpenGL counts rows from the bottom
            renderer = self._offscreen._renderer
            renderer.region = (col, y, width, height)
            GL.glScissor(col, y, width, height)
            GL.glEnable(GL.GL_SCISSOR_TEST)
            try:
                rgb = renderer.render(self.scene, RenderFlags.OFFSCREEN)
            finally:
                GL.glDisable(GL.GL_SCISSOR_TEST)
            frame[row:row + height, col:col + width] = rgb[::-1]
        return frame
