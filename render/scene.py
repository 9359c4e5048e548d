"""3-D scenes of the sheet for the animation: paper meshes with see-through holes, the crease, the camera.

Geometry comes in as positions already computed by `foldsim.kernels.motion` (sheet units, z toward
the viewer); this module only turns them into pyrender objects and pixels. Each face of the paper is
its own single-sided primitive (front: counter-clockwise in the flat sheet; back: the same triangles
with the opposite winding), so back-face culling shows whichever side faces the camera, in its own
colour, with no z-fighting between the two.

Holes are real cut-outs. Triangles never overlap on the flat sheet, so one texture of the flat sheet
carries every hole: its alpha is 0 inside each hole on each layer the hole goes through (drawn at that
layer's flat place) and 255 elsewhere. Every paper vertex takes its flat-sheet position as texture
coordinate, so the texture rides on the paper through every motion, and fragments whose alpha falls
under `MASK_CUTOFF` are discarded: lower layers and the background show through the holes. Every
hole fits inside its own triangle (to within 0.012 sheet units), so no cut strays onto a neighbour
that lies elsewhere mid-fold.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, ImageDraw

os.environ.setdefault("PYOPENGL_PLATFORM", "egl")  # headless: must precede the first pyrender import

import pyrender  # noqa: E402
import trimesh  # noqa: E402
from pyrender.constants import GLTF  # noqa: E402
from pyrender.shader_program import ShaderProgramCache  # noqa: E402

from ..kernels import motion as M  # noqa: E402
from ..kernels import state as S  # noqa: E402
from ..kernels.sheet import FLAT_VERTICES, HALF, N_TRIANGLES  # noqa: E402
from ..trace import Trace  # noqa: E402
from .images import CENTROIDS  # noqa: E402
from .shapes import hole_polygons  # noqa: E402

if TYPE_CHECKING:
    from .animation import AnimationOptions

#: the paper's (front, back) materials
Look = tuple[pyrender.Material, pyrender.Material]


def _counter_clockwise(triangles: np.ndarray) -> np.ndarray:
    """The same triangles with vertices 1 and 2 swapped where they ran clockwise."""
    edge1, edge2 = triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0]
    clockwise = edge1[:, 0] * edge2[:, 1] - edge1[:, 1] * edge2[:, 0] < 0
    return np.where(clockwise[:, None, None], triangles[:, [0, 2, 1]], triangles)


#: float32[32, 3, 2]: the flat triangles in sheet units, every one counter-clockwise (front face +z)
FRONT_TRIANGLES = _counter_clockwise(FLAT_VERTICES.astype(np.float32) / HALF)
#: float32[32, 3, 2]: texture coordinates of those vertices, the flat sheet [-2, 2]^2 onto [0, 1]^2
#: (v up: pyrender uploads an image's first row as the texture's top)
FLAT_UV = (FRONT_TRIANGLES + 2) / 4
#: the back faces' vertex order: every triangle's winding reversed
BACK_ORDER = np.arange(3 * N_TRIANGLES).reshape(N_TRIANGLES, 3)[:, [0, 2, 1]].ravel()
TEXTURE_PIXELS = 1024  # side of the hole texture: 256 texels per grid cell
SUPERSAMPLE = 4  # holes are drawn this much finer and averaged down, so their edges stay smooth
MASK_CUTOFF = 0.5  # texture alpha under which the paper is cut away
CREASE_LIFT = M.LAYER_GAP / 2  # the crease line floats just above the paper that stays put
CREASE_RADIUS = 0.015
#: the line of pyrender 0.1.45's mesh.frag after which the alpha test goes (see `offscreen_renderer`)
_BASE_COLOUR_LINE = "base_color = base_color * srgb_to_linear(texture(material.base_color_texture, uv_0));\n"


@dataclass(frozen=True)
class Cut:
    """One hole through one layer, on the flat sheet (sheet units): its centre, the pivot the punch
    grows it about, and the polygons whose union is its outline."""

    centre: np.ndarray  # float[2]
    polygons: tuple[np.ndarray, ...]  # float[N, 2] each


def hole_cuts(trace: Trace) -> list[Cut]:
    """Every layer every initial hole goes through (SPEC §4), on the flat sheet.

    A hole punched on grid position L of the final folded sheet meets each triangle t lying there;
    its outline, drawn around L's centroid in the final frame, is carried back to t's flat place by
    t's inverse placement, so it lands mirrored/turned exactly as the result hole is.
    """
    final = trace.sheet(len(trace.steps))
    on_grid = np.asarray(S.grid_index_of(final))
    linear = np.asarray(final.linear, np.float32)
    shift = np.asarray(final.shift, np.float32) / HALF
    cuts = []
    for hole in trace.config.holes:
        centre = CENTROIDS[hole.location - 1]
        polygons = hole_polygons(hole.shape, hole.size, hole.quarter, centre)
        ends = np.cumsum([1] + [len(polygon) for polygon in polygons])[:-1]  # the centre goes first
        layers = np.flatnonzero(on_grid == hole.location - 1)
        points = np.concatenate([centre[None], *polygons])
        flat = np.asarray(M.unplace(linear[layers, None], shift[layers, None], points[None]))  # [L, N, 2]
        cuts += [Cut(layer[0], tuple(np.split(layer, ends)[1:])) for layer in flat]
    return cuts


def texel(points: np.ndarray, pixels: int) -> np.ndarray:
    """float[N, 2]: (column, row) of flat-sheet points (sheet units, y up) in a `pixels`-wide image
    of the flat sheet whose first row is the sheet's top edge (Pillow's coordinates: pixel centres
    at whole numbers)."""
    uv = (np.asarray(points, float) + 2) / 4
    return np.stack([uv[:, 0], 1 - uv[:, 1]], axis=1) * pixels - 0.5


def hole_mask(cuts: list[Cut], growth: float, pixels: int = TEXTURE_PIXELS,
              supersample: int = SUPERSAMPLE) -> np.ndarray:
    """uint8[pixels, pixels]: alpha of the flat sheet, 0 inside every cut grown to `growth` of its
    size about its centre (the punch opening it), 255 elsewhere; the first row is the top edge."""
    fine = pixels * supersample
    image = Image.new("L", (fine, fine), 255)
    draw = ImageDraw.Draw(image)
    for cut in cuts:
        for polygon in cut.polygons:
            draw.polygon(texel(cut.centre + growth * (polygon - cut.centre), fine).ravel().tolist(), fill=0)
    return np.asarray(image.reduce(supersample))


def face_normals(triangles: np.ndarray) -> np.ndarray:
    """float[T, 3]: unit front normals of triangles float[T, 3, 3] (vertex order as FRONT_TRIANGLES)."""
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


def paper_materials(alpha: np.ndarray | None, opts: AnimationOptions) -> Look:
    """Front and back materials of the paper, cut where `alpha` (a `hole_mask`) is 0; None: uncut."""
    if alpha is None:
        return _material(opts.front_colour), _material(opts.back_colour)
    white = np.full((*alpha.shape, 3), 255, np.uint8)
    clamp = pyrender.Sampler(wrapS=GLTF.CLAMP_TO_EDGE, wrapT=GLTF.CLAMP_TO_EDGE)  # no holes wrapping round
    holes = pyrender.Texture(source=np.dstack([white, alpha]), source_channels="RGBA", sampler=clamp)
    return _material(opts.front_colour, holes=holes), _material(opts.back_colour, holes=holes)


def paper_looks(cuts: list[Cut], growths: np.ndarray, opts: AnimationOptions) -> dict[float, Look]:
    """Paper materials for each hole growth of a video (0: not punched yet), so frames that share a
    growth share one texture, uploaded once."""
    return {float(g): paper_materials(hole_mask(cuts, g) if g > 0 else None, opts) for g in np.unique(growths)}


def paper_mesh(triangles: np.ndarray, materials: Look) -> pyrender.Mesh:
    """The sheet (`triangles` float[32, 3, 3], vertex order as FRONT_TRIANGLES): a front primitive
    and a back one (reversed winding, reversed normals), textured by their flat-sheet place."""
    vertices, uv = triangles.reshape(-1, 3), FLAT_UV.reshape(-1, 2)
    normals = np.repeat(face_normals(triangles), 3, axis=0)
    front = pyrender.Primitive(positions=vertices, normals=normals, texcoord_0=uv, material=materials[0])
    back = pyrender.Primitive(positions=vertices[BACK_ORDER], normals=-normals, texcoord_0=uv[BACK_ORDER],
                              material=materials[1])
    return pyrender.Mesh([front, back])


def crease_mesh(ends: np.ndarray, opts: AnimationOptions) -> pyrender.Mesh:
    """A thin dark rod along the crease, `ends` float[2, 3]."""
    rod = trimesh.creation.cylinder(radius=CREASE_RADIUS, segment=ends, sections=8)
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
    """An offscreen renderer that honours alphaMode "MASK", freed on exit.

    pyrender 0.1.45 accepts a material's alphaMode but its shader never discards a fragment, so a
    masked texel would still draw paper; this renderer compiles its shaders from a patched copy.
    """
    renderer = pyrender.OffscreenRenderer(opts.width, opts.height)
    try:
        with tempfile.TemporaryDirectory(prefix="foldsim-shaders-") as folder:
            # pyrender has no public hook for its shader folder; its Renderer reads this cache lazily
            renderer._renderer._program_cache = ShaderProgramCache(shader_dir=_masking_shaders(Path(folder)))
            yield renderer
    finally:
        renderer.delete()


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


def project(points: np.ndarray, opts: AnimationOptions) -> np.ndarray:
    """float[N, 2]: pixel (column, row) of 3-D points float[N, 3] in the rendered frame."""
    view = np.linalg.inv(camera_pose(opts))
    clip = camera(opts).get_projection_matrix(opts.width, opts.height) @ view @ np.c_[points, np.ones(len(points))].T
    ndc = clip[:2] / clip[3]
    return np.stack([(ndc[0] + 1) / 2 * opts.width, (1 - ndc[1]) / 2 * opts.height], axis=1)


def build_scene(meshes: list[pyrender.Mesh], opts: AnimationOptions) -> pyrender.Scene:
    """A scene with `meshes`, the camera and a light at the camera (faces turned away get darker)."""
    ambient = [opts.ambient_light] * 3
    scene = pyrender.Scene(bg_color=[c / 255 for c in opts.background_colour] + [1.0], ambient_light=ambient)
    for mesh in meshes:
        scene.add(mesh)
    pose = camera_pose(opts)
    scene.add(camera(opts), pose=pose)
    scene.add(pyrender.DirectionalLight(color=np.ones(3), intensity=opts.light_intensity), pose=pose)
    return scene
