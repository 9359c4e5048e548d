"""2-D step images (formats §5), hole outlines and the numbered sheet: pixels at known places,
orientation of every direction, file names, size and byte-for-byte determinism."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from foldsim import Config, Hole, InputError
from foldsim.mentalblackboard_sheet import SHEET
from foldsim.holes import SHAPES, SIZES
from foldsim.render.images import (
    ImageStyle,
    numbered_sheet_image,
    pixel_of,
    png_bytes,
    state_image,
    step_images,
    write_images,
    write_numbered_sheet,
)
from foldsim.render.shapes import SIZE_SCALE, fan_triangles, hole_polygons
from foldsim.trace import trace

BLACK, WHITE, GREEN = (0, 0, 0), (255, 255, 255), (0, 128, 0)
CENTROIDS = SHEET.centroids
NAMES_161 = ["PFHP_161_fold_0_initial.png", "PFHP_161_fold_1_diagonal_topRight_to_bottomLeft.png",
             "PFHP_161_punching_holes.png", "PFHP_161_result_holes.png"]


@pytest.fixture(scope="module")
def pfhp_161():
    holes = [Hole.make("star", "large", 0, 28), Hole.make("letter", "small", 270, 30)]
    return trace(Config.from_codes("D2-B", holes, id="PFHP_161"))


@pytest.fixture(scope="module")
def images_161(pfhp_161):
    return dict(step_images(pfhp_161, sheet=SHEET))


def colour_at(image: Image.Image, point) -> tuple[int, int, int]:
    x, y = pixel_of(point)
    return image.getpixel((int(x), int(y)))


def signed_area(polygon: np.ndarray) -> float:
    x, y = polygon.T
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def cross(u, v) -> float:
    return float(u[0] * v[1] - u[1] * v[0])


def inside(polygons: list[np.ndarray], point) -> bool:
    """Point in the union of the (convex or centre-star-shaped) polygons, via their fans."""
    for polygon in polygons:
        vertices, faces = fan_triangles(polygon)
        for a, b, c in vertices[faces]:
            d = [cross(q - p, np.asarray(point) - p) for p, q in ((a, b), (b, c), (c, a))]
            if min(d) >= 0:
                return True
    return False


# --- shapes ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
def test_hole_polygons_are_counter_clockwise_and_fan_triangulable(shape):
    for size in SIZES:
        for quarter in range(4):
            for mirrored in (False, True):
                for polygon in hole_polygons(shape, size, quarter, (0.5, -1.5), mirrored=mirrored):
                    assert signed_area(polygon) > 0
                    vertices, faces = fan_triangles(polygon)
                    areas = [signed_area(vertices[f]) for f in faces]
                    assert min(areas) >= 0 and sum(areas) == pytest.approx(signed_area(polygon))


@pytest.mark.parametrize("shape", SHAPES)
def test_hole_size_scales_area_and_stays_near_its_centre(shape):
    area = {size: sum(signed_area(p) for p in hole_polygons(shape, size, 0)) for size in SIZES}
    assert area["large"] / area["small"] == pytest.approx((SIZE_SCALE["large"] / SIZE_SCALE["small"]) ** 2)
    points = np.concatenate(hole_polygons(shape, "large", 1, (1.0, 2.0)))
    assert np.abs(points - (1.0, 2.0)).max() <= SIZE_SCALE["large"] * 1.2


def test_directions_turn_counter_clockwise_as_the_viewer_sees_it():
    s = SIZE_SCALE["large"]
    # per turn, a point by a base corner (inside) and the point beside the apex (outside):
    # 0 apex up, 90 apex left, 180 down, 270 right
    corner_and_apex_side = {0: ((0.8, -0.8), (0.8, 0.8)), 1: ((0.8, 0.8), (-0.8, 0.8)),
                            2: ((-0.8, 0.8), (-0.8, -0.8)), 3: ((-0.8, -0.8), (0.8, -0.8))}
    for quarter, (inner, outer) in corner_and_apex_side.items():
        polygons = hole_polygons("triangle", "large", quarter)
        assert inside(polygons, np.multiply(inner, s)) and not inside(polygons, np.multiply(outer, s)), quarter
    ellipse = {q: hole_polygons("ellipse", "large", q) for q in range(2)}
    assert inside(ellipse[0], (0.9 * s, 0)) and not inside(ellipse[0], (0, 0.9 * s))  # "0, 180" horizontal
    assert inside(ellipse[1], (0, 0.9 * s)) and not inside(ellipse[1], (0.9 * s, 0))


def test_mirrored_text_reads_backwards_and_symmetric_shapes_do_not_change():
    s = SIZE_SCALE["large"]
    t_bar = (-1.0 * s, 0.55 * s)  # the left end of the T's bar (upright "TA")
    assert inside(hole_polygons("text", "large", 0), t_bar)
    assert not inside(hole_polygons("text", "large", 0, mirrored=True), t_bar)
    for shape in ("triangle", "star", "letter", "trapezoid"):
        plain = np.concatenate(hole_polygons(shape, "small", 1))
        mirrored = np.concatenate(hole_polygons(shape, "small", 1, mirrored=True))
        assert {tuple(p) for p in np.round(plain, 9)} == {tuple(p) for p in np.round(mirrored, 9)}


def test_unknown_shape_is_an_error():
    with pytest.raises(ValueError, match="hexagon"):
        hole_polygons("hexagon", "large", 0)


# --- step images ----------------------------------------------------------------------------------

def test_file_names_size_and_mode(images_161):
    assert list(images_161) == NAMES_161
    for image in images_161.values():
        assert image.size == (900, 750) and image.mode == "RGB"


def test_folded_region_black_paper_white(images_161, pfhp_161):
    image = images_161[NAMES_161[1]]
    paper = pfhp_161.paper(1)
    assert 0 < paper.sum() < 32
    for t in range(32):
        assert colour_at(image, CENTROIDS[t]) == (WHITE if paper[t] else BLACK), f"triangle {t + 1}"
    initial = images_161[NAMES_161[0]]
    assert all(colour_at(initial, c) == WHITE for c in CENTROIDS)


def test_holes_green_at_their_centres(images_161, pfhp_161):
    punching, result = images_161[NAMES_161[2]], images_161[NAMES_161[3]]
    for hole in pfhp_161.config.holes:
        assert colour_at(punching, CENTROIDS[hole.location - 1]) == GREEN
    hole_ids = {h.location for h in pfhp_161.result.holes}
    assert hole_ids == {15, 24, 28, 30}
    for t in range(32):
        assert colour_at(result, CENTROIDS[t]) == (GREEN if t + 1 in hole_ids else WHITE), f"triangle {t + 1}"
    assert colour_at(punching, CENTROIDS[1]) == BLACK  # the punching image keeps the folded mask


@pytest.mark.parametrize("quarter", range(4))
def test_image_hole_orientation(quarter):
    """A triangle's base corner is green and the point mirrored to the apex side is white, turned
    counter-clockwise by the direction, through the whole pixel pipeline (y flips)."""
    s = SIZE_SCALE["large"]
    image = state_image(np.ones(32, dtype=bool), (Hole.make("triangle", "large", 90 * quarter, 14),), sheet=SHEET)
    turn = np.linalg.matrix_power(np.array([[0, -1], [1, 0]]), quarter)  # quarter turns, y up
    centre = CENTROIDS[13]
    assert colour_at(image, centre + turn @ (0.6 * s, -0.8 * s)) == GREEN
    assert colour_at(image, centre + turn @ (0.6 * s, 0.8 * s)) == WHITE


def test_every_shape_draws_green_near_its_centre():
    holes = tuple(Hole.make(shape, "small", 0, 1 + 3 * i) for i, shape in enumerate(SHAPES))
    pixels = np.asarray(state_image(np.ones(32, dtype=bool), holes, sheet=SHEET))
    for hole in holes:
        x, y = (int(v) for v in pixel_of(CENTROIDS[hole.location - 1]))
        window = pixels[y - 8 : y + 9, x - 8 : x + 9].reshape(-1, 3)
        assert (window == GREEN).all(axis=1).sum() >= 20, hole.shape


def test_legend_has_one_icon_per_hole_shape(images_161):
    def legend_green(image):
        return int((np.asarray(image)[:, 640:] == GREEN).all(axis=2).sum())

    assert legend_green(images_161[NAMES_161[0]]) == 0
    assert legend_green(images_161[NAMES_161[2]]) > 0
    one = state_image(np.ones(32, dtype=bool), (Hole.make("star", "large", 0, 1),), sheet=SHEET)
    assert 0 < legend_green(one) < legend_green(images_161[NAMES_161[2]])


def test_images_are_deterministic(pfhp_161, images_161):
    again = dict(step_images(pfhp_161, sheet=SHEET))
    for name, image in images_161.items():
        assert png_bytes(image) == png_bytes(again[name])


def test_write_images_paths_and_bytes(pfhp_161, images_161, tmp_path):
    paths = write_images(pfhp_161, tmp_path, "PFHP_161", sheet=SHEET)
    folder = tmp_path / "img_text_outputs" / "PFHP_161" / "img"
    assert paths == [folder / name for name in NAMES_161]
    assert sorted(p.name for p in folder.iterdir()) == sorted(NAMES_161)  # no temp files left
    for path in paths:
        assert path.read_bytes() == png_bytes(images_161[path.name])


def test_rotation_images_are_named_by_their_json_fold_type():
    names = [name for name, _ in step_images(trace(Config.from_codes("D1-F,R-90,H2-B", id="R1")), sheet=SHEET)]
    assert names == ["R1_fold_0_initial.png", "R1_fold_1_diagonal_topLeft_to_bottomRight.png",
                     "R1_fold_2_rotation-90.png", "R1_fold_3_horizontal_bottom_to_top.png",
                     "R1_punching_holes.png", "R1_result_holes.png"]


def test_unrealizable_item_is_an_error():
    with pytest.raises(InputError, match=r"^BAD_2: cannot render: fold D1-F \(action 2\)"):
        step_images(trace(Config.from_codes("H1-F,D1-F", id="BAD_2")), sheet=SHEET)


def test_custom_size():
    style = ImageStyle(width=450, height=375, supersample=2)
    image = state_image(np.zeros(32, dtype=bool), (), style, sheet=SHEET)
    assert image.size == (450, 375)
    x, y = pixel_of(CENTROIDS[5], style)
    assert image.getpixel((int(x), int(y))) == BLACK


# --- numbered sheet -------------------------------------------------------------------------------

def test_numbered_sheet_has_32_distinct_labels(tmp_path):
    image = numbered_sheet_image(sheet=SHEET)
    pixels = np.asarray(image.convert("L"))
    size = image.width
    scale = size / 4.5  # the sheet spans 4 units plus a 0.25 unit margin each side
    crops = []
    for t, (x, y) in enumerate(CENTROIDS):
        px, py = int(size / 2 + scale * x), int(size / 2 - scale * y)
        crop = pixels[py - 10 : py + 11, px - 14 : px + 15]
        assert (crop < 128).sum() > 10, f"no label at triangle {t + 1}"
        crops.append(crop < 128)
    assert len({c.tobytes() for c in crops}) == 32
    path = write_numbered_sheet(tmp_path / "paper_structure.png", sheet=SHEET)
    assert path.read_bytes() == png_bytes(image)
    assert Image.open(io.BytesIO(path.read_bytes())).size == (600, 600)
