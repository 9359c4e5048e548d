"""3-D scenes of the sheet for the animation: paper meshes, hole decals, the crease, the camera.

Geometry comes in as positions already computed by `foldsim.kernels.motion` (sheet units, z toward
the viewer); this module only turns them into trimesh/pyrender objects and pixels. Each face of the
paper is its own single-sided mesh (front: counter-clockwise in the flat sheet; back: the same
triangles with the opposite winding), so back-face culling shows whichever side faces the camera,
in its own colour, with no z-fighting between the two. Holes are drawn as decals in the background
colour, a hair off both faces of every punched layer, riding on their triangle.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

os.environ.setdefault("PYOPENGL_PLATFORM", "egl")  # headless: must precede the first pyrender import

import pyrender  # noqa: E402
import trimesh  # noqa: E402

from ..kernels import motion as M  # noqa: E402
from ..kernels import state as S  # noqa: E402
from ..kernels.sheet import FLAT_VERTICES, HALF, N_TRIANGLES  # noqa: E402
from ..trace import Trace  # noqa: E402
from .images import CENTROIDS  # noqa: E402
from .shapes import fan_triangles, hole_polygons  # noqa: E402

if TYPE_CHECKING:
    from .animation import AnimationOptions


def _counter_clockwise(triangles: np.ndarray) -> np.ndarray:
    """The same triangles with vertices 1 and 2 swapped where they ran clockwise."""
    edge1, edge2 = triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0]
    clockwise = edge1[:, 0] * edge2[:, 1] - edge1[:, 1] * edge2[:, 0] < 0
    return np.where(clockwise[:, None, None], triangles[:, [0, 2, 1]], triangles)


#: float32[32, 3, 2]: the flat triangles in sheet units, every one counter-clockwise (front face +z)
FRONT_TRIANGLES = _counter_clockwise(FLAT_VERTICES.astype(np.float32) / HALF)
DECAL_LIFT = M.LAYER_GAP / 4  # decal distance off its face: well inside the gap between layers
CREASE_LIFT = M.LAYER_GAP / 2  # the crease line floats just above the paper that stays put
CREASE_RADIUS = 0.015


@dataclass(frozen=True)
class Decals:
    """Hole decals of one item, attached to the flat sheet: every point rides on one triangle.

    `anchor[i]` is the index of the point at the centre of point i's hole, the pivot the punch
    grows the hole about. Faces are counter-clockwise in the flat sheet (the front side).
    """

    triangle: np.ndarray  # int[N]: flat triangle index each point rides on
    flat: np.ndarray  # float32[N, 2]: its place on the flat sheet, sheet units
    anchor: np.ndarray  # int[N]
    faces: np.ndarray  # int[M, 3]


def hole_decals(trace: Trace) -> Decals:
    """Decals for every layer every initial hole goes through (SPEC §4), in the flat sheet.

    A hole punched on grid position L of the final folded sheet meets each triangle t lying there;
    its outline, drawn around L's centroid in the final frame, is carried back to t's flat place by
    t's inverse placement, so it lands mirrored/turned exactly as the result hole is.
    """
    final = trace.sheet(len(trace.steps))
    on_grid = np.asarray(S.grid_index_of(final))
    linear = np.asarray(final.linear, np.float32)
    shift = np.asarray(final.shift, np.float32) / HALF
    triangle, flat, anchor, faces = [], [], [], []
    count = 0
    for hole in trace.config.holes:
        centre = CENTROIDS[hole.location - 1]
        for t in np.flatnonzero(on_grid == hole.location - 1):
            mirrored = np.linalg.det(linear[t]) < 0
            parts, offset = [centre[None]], count + 1  # the hole's centre first: the growth pivot
            for polygon in hole_polygons(hole.shape, hole.size, hole.quarter, centre):
                vertices, fan = fan_triangles(polygon)
                faces.append(offset + (fan[:, ::-1] if mirrored else fan))  # a reflection flips winding
                parts.append(vertices)
                offset += len(vertices)
            points = np.concatenate(parts)
            flat.append(np.asarray(M.unplace(linear[t], shift[t], points)))
            triangle.append(np.full(len(points), t))
            anchor.append(np.full(len(points), count))
            count += len(points)
    if not count:
        return Decals(np.zeros(0, int), np.zeros((0, 2), np.float32), np.zeros(0, int), np.zeros((0, 3), int))
    return Decals(np.concatenate(triangle), np.concatenate(flat).astype(np.float32), np.concatenate(anchor),
                  np.concatenate(faces))


def face_normals(triangles: np.ndarray) -> np.ndarray:
    """float[T, 3]: unit front normals of triangles float[T, 3, 3] (vertex order as FRONT_TRIANGLES)."""
    normal = np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0])
    return normal / np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-9)


def grown(points: np.ndarray, anchor: np.ndarray, scale: float) -> np.ndarray:
    """Decal points scaled by `scale` about their hole's centre (the punch making the hole)."""
    return points[anchor] + scale * (points - points[anchor])


def _material(colour: tuple[int, int, int], double_sided: bool = False) -> pyrender.MetallicRoughnessMaterial:
    """A matte material that renders as `colour` (sRGB) where fully lit: pyrender's shader takes
    linear colours and gamma-encodes its output."""
    rgba = [(c / 255) ** 2.2 for c in colour] + [1.0]
    return pyrender.MetallicRoughnessMaterial(baseColorFactor=rgba, metallicFactor=0.0, roughnessFactor=1.0,
                                              doubleSided=double_sided)


def _two_sided_meshes(vertices: np.ndarray, faces: np.ndarray, lift: np.ndarray,
                      front: pyrender.Material, back: pyrender.Material) -> list[pyrender.Mesh]:
    """Front faces (counter-clockwise, pushed `lift` along the normal) and back faces (reversed
    winding, pushed the other way), each single-sided so only the side facing the camera draws."""
    meshes = []
    for sign, material, winding in ((1.0, front, faces), (-1.0, back, faces[:, ::-1])):
        mesh = trimesh.Trimesh(vertices=vertices + sign * lift, faces=winding, process=False)
        meshes.append(pyrender.Mesh.from_trimesh(mesh, material=material, smooth=False))
    return meshes


def paper_meshes(triangles: np.ndarray, decal_points: np.ndarray, decal_faces: np.ndarray,
                 decal_triangle: np.ndarray, opts: AnimationOptions) -> list[pyrender.Mesh]:
    """Meshes of the sheet (`triangles` float[32, 3, 3]) and of its hole decals (points float[N, 3]
    riding on triangles `decal_triangle[N]`)."""
    faces = np.arange(3 * N_TRIANGLES).reshape(N_TRIANGLES, 3)
    no_lift = np.zeros((3 * N_TRIANGLES, 3))
    meshes = _two_sided_meshes(triangles.reshape(-1, 3), faces, no_lift,
                               _material(opts.front_colour), _material(opts.back_colour))
    if len(decal_faces):
        lift = DECAL_LIFT * face_normals(triangles)[decal_triangle]
        hole = _material(opts.background_colour)
        meshes += _two_sided_meshes(decal_points, decal_faces, lift, hole, hole)
    return meshes


def crease_mesh(ends: np.ndarray, opts: AnimationOptions) -> pyrender.Mesh:
    """A thin dark rod along the crease, `ends` float[2, 3]."""
    rod = trimesh.creation.cylinder(radius=CREASE_RADIUS, segment=ends, sections=8)
    return pyrender.Mesh.from_trimesh(rod, material=_material(opts.crease_colour, double_sided=True), smooth=False)


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
