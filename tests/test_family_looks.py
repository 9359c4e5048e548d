"""Issue 18: 3-D frames of family items in their benchmark's look (render/items.py reading
render/item_images.FAMILY_LOOKS, the table the 2-D composites draw from): for one item of each family
the result frame's background, paper, holes, grid lines and outline have the family's colours at
the places the engine puts them (sampled through the camera's projection), the fold frames show the
family's crease colour, the same item renders the same bytes twice, the default look is untouched
(records without a family, MentalBlackboard's, `--look default`), `--look` overrides the family,
and `foldsim render-item` picks the look from the record. Small frames; records without images."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from foldsim.cli import app
from foldsim.errors import InputError
from foldsim.render.animation import AnimationOptions, top_view
from foldsim.render.item_images import FAMILY_LOOKS, family_composite, family_step_panels
from foldsim.render.items import ItemMedia, item_result_image, look_of, render_item_frame, write_item_media
from foldsim.render.scene import project

SMALL = AnimationOptions(width=96, height=72, fps=2, seconds_per_action=1.0, hold_seconds=0.5)
SAMPLE = replace(SMALL, width=256, height=192)  # the result frames whose pixels are sampled
LEVELS = {"spatialviz": "L0", "visfactor": "easy", "srbench": "1"}
DEFAULT = AnimationOptions()


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> dict[str, dict]:
    """One generated record of each family (no images: only the item is drawn here)."""
    from foldsim.dataset.families import write_family
    from foldsim.families.registry import family

    root = tmp_path_factory.mktemp("family-looks")
    out = {}
    for name, level in LEVELS.items():
        written = write_family(family(name), root / name, 1, 3, level, media=False)
        [out[name]] = json.loads(Path(written["items"]).read_text())
    return out


class Result:
    """A result frame (top view, flat sheet) and its pixel at sheet points (cell units, y up)."""

    def __init__(self, record: dict, look):
        self.frame = np.asarray(item_result_image(record, SAMPLE, look=look)).astype(int)
        self.media = ItemMedia.of(record, SAMPLE, look)
        sheet = record["item"]["sheet"] if "item" in record else record["sheet"]
        self.cols, self.rows = sheet["cols"], sheet["rows"]

    def at(self, x: float, y: float) -> np.ndarray:
        col, row = project(np.array([[x - self.cols / 2, y - self.rows / 2, 0.0]]), top_view(self.media.opts))[0]
        return self.frame[int(row), int(col)]


def holes_of(record: dict) -> list[tuple[float, float]]:
    return [(float(Fraction(h["x"])), float(Fraction(h["y"]))) for h in record["resultHoles"]]


def clear_points(record: dict, look, away_from_lines: bool) -> list[tuple[float, float]]:
    """Points of the sheet well clear of every hole and the edges (and, `away_from_lines`, of the
    cell lines): where bare paper shows."""
    sheet = record["item"]["sheet"]
    radius = look.radius(sheet["cols"], sheet["rows"])
    out = []
    for fx in np.linspace(0.1, 0.9, 9):
        for fy in np.linspace(0.1, 0.9, 9):
            x, y = fx * sheet["cols"], fy * sheet["rows"]
            if away_from_lines and min(abs(x - round(x)), abs(y - round(y))) < 0.15:
                continue
            if all(np.hypot(x - hx, y - hy) > 2 * radius + 0.1 for hx, hy in holes_of(record)):
                out.append((x, y))
    assert out
    return out


def line_points(record: dict, look) -> list[tuple[float, float]]:
    """Midpoints of interior cell-line pieces clear of every hole (where a grid family's line is)."""
    sheet = record["item"]["sheet"]
    radius = look.radius(sheet["cols"], sheet["rows"])
    candidates = [(x, y + 0.5) for x in range(1, sheet["cols"]) for y in range(sheet["rows"])]
    candidates += [(x + 0.5, y) for x in range(sheet["cols"]) for y in range(1, sheet["rows"])]
    return [(x, y) for x, y in candidates if all(np.hypot(x - hx, y - hy) > radius + 0.15 for hx, hy in holes_of(record))]


@pytest.mark.parametrize("name", list(LEVELS))
def test_result_frame_in_the_family_look(records, name):
    record, look = records[name], FAMILY_LOOKS[name]
    assert look_of(record) is look
    painted, plain = Result(record, look), Result(record, None)
    # background: the family's (the clear colour, exact), else the default's dark one
    assert tuple(painted.frame[0, 0]) == look.background == (255, 255, 255)
    assert tuple(plain.frame[0, 0]) == DEFAULT.background_colour
    # every hole of the engine's result: a filled circle in the family's hole colour; in the default
    # look a see-through cut showing the background
    for x, y in holes_of(record):
        assert (painted.at(x, y) <= np.array(look.hole_colour) + 40).all(), (x, y, painted.at(x, y))
        assert tuple(plain.at(x, y)) == DEFAULT.background_colour
    # bare paper: the family's white paper (lit, neutral); the default's warm paper
    for x, y in clear_points(record, look, away_from_lines=True):
        assert (painted.at(x, y) >= 240).all() and np.ptp(painted.at(x, y)) <= 4, (x, y, painted.at(x, y))
        red, _, blue = plain.at(x, y)
        assert red - blue >= 15
    # grid lines only on a grid family's paper, in its grid colour (thin: partly covered pixels)
    lines = [painted.at(x, y) for x, y in line_points(record, look)]
    if look.grid:
        assert lines and all((p <= 245).all() and (p >= min(look.grid_colour) - 10).all() for p in lines), lines
    else:
        assert all((p >= 250).all() for p in lines), lines
    # the outline along the sheet's edges
    inside = 0.5 * look.outline_width * min(1.0, max(painted.cols, painted.rows) / 4)
    for x, y in ((inside, painted.rows / 2), (painted.cols - inside, painted.rows / 2), (painted.cols / 2, inside)):
        assert (painted.at(x, y) <= 160).all(), (x, y, painted.at(x, y))


def red_pixels(frame: np.ndarray) -> int:
    """Pixels clearly red (the thin crease rod blends with the paper at its edges)."""
    frame = frame.astype(int)
    return int((frame[..., 0] - np.maximum(frame[..., 1], frame[..., 2]) > 40).sum())


@pytest.mark.parametrize("name", list(LEVELS))
def test_fold_frames_in_the_family_look(records, name):
    """Mid-fold: the family's background around the paper, its crease colour (the 2-D fold marks'
    red) along the crease; the default look has neither."""
    record, look = records[name], FAMILY_LOOKS[name]
    frame = render_item_frame(record, 0, 0.5, replace(SAMPLE, captions="none"), look=look)
    plain = render_item_frame(record, 0, 0.5, replace(SAMPLE, captions="none"))
    assert tuple(frame[0, 0]) == look.background and tuple(plain[0, 0]) == DEFAULT.background_colour
    assert red_pixels(frame) >= 10 and red_pixels(plain) == 0
    # the paper is neutral (white front, a barely blue back), not the default's warm front and blue back
    def tint(image: np.ndarray, background) -> float:
        paper = image[(image != background).any(-1)].astype(int)
        paper = paper[paper[:, 0] - np.maximum(paper[:, 1], paper[:, 2]) <= 40]  # the crease aside
        assert len(paper) > 500
        return float(np.percentile(np.abs(paper[:, 2] - paper[:, 0]), 90))

    assert tint(frame, look.background) <= 15 and tint(plain, DEFAULT.background_colour) >= 20


def test_same_bytes_on_a_rerun(records, tmp_path):
    record = records["srbench"]
    for run in ("a", "b"):
        write_item_media(record, tmp_path / run, SMALL, item_name=record["id"], video=True, frames=True,
                         look=look_of(record))
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert len(files) > 5 and any(f.suffix == ".mp4" for f in files)
    for name in files:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_default_look_is_untouched(records, tmp_path):
    """A family record with --look default, its bare item (no family) and a family without a look
    (MentalBlackboard's family records) are drawn exactly as before: the same bytes as the item
    record drawn with no look at all."""
    record = records["visfactor"]
    assert look_of(record, "default") is None and look_of(record["item"]) is None
    assert look_of({**record, "family": "mentalblackboard"}) is None and look_of("not a record") is None
    bare = render_item_frame(record["item"], 0, 0.6, SMALL, punched=True)
    assert np.array_equal(render_item_frame(record, 0, 0.6, SMALL, punched=True, look=look_of(record, "default")), bare)
    assert np.array_equal(render_item_frame({**record, "family": "mentalblackboard"}, 0, 0.6, SMALL, punched=True,
                                            look=look_of({**record, "family": "mentalblackboard"})), bare)
    assert not np.array_equal(render_item_frame(record, 0, 0.6, SMALL, punched=True, look=look_of(record)), bare)


def test_look_override(records):
    """`--look spatialviz` on an SRBench record: grid paper and SpatialViz's hole size."""
    record = records["srbench"]
    assert look_of(record, "spatialviz") is FAMILY_LOOKS["spatialviz"]
    def radius(look) -> float:  # the cuts' reach from their centre: the look's hole radius
        cuts = ItemMedia.of(record, SMALL, look).cuts
        return max(float(np.linalg.norm(polygon - cut.centre, axis=1).max()) for cut in cuts for polygon in cut.polygons)

    assert radius(look_of(record, "spatialviz")) == pytest.approx(0.3, abs=1e-6)
    assert radius(look_of(record)) == pytest.approx(0.035, abs=1e-6)
    assert radius(None) == pytest.approx(0.1, abs=1e-6)  # the default look: the punch's own "small" circle
    with pytest.raises(InputError, match="--look: must be one of family, default, spatialviz, visfactor, srbench"):
        look_of(record, "nope")


def test_one_table_for_2d_and_3d(records):
    """The 2-D composite reads the same look: its panel's background and paper are the table's."""
    from foldsim.render.item_geometry import item_trace

    record, look = records["spatialviz"], FAMILY_LOOKS["spatialviz"]
    trace = item_trace(record["item"])
    panel = np.asarray(family_composite(trace, [], look, family_step_panels(trace, look)))
    assert tuple(panel[1, 1]) == look.background


def test_render_item_cli_picks_the_look(records, tmp_path):
    items = tmp_path / "items.json"
    items.write_text(json.dumps([records["srbench"], records["spatialviz"]["item"]]))
    runner = CliRunner()
    args = ["render-item", str(items), "--frames", "--width", "96", "--height", "72", "--fps", "2"]
    result = runner.invoke(app, [*args, "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    results = {p.name: np.asarray(Image.open(p)) for p in (tmp_path / "out" / "prediction_results").glob("*.png")}
    sr, sv = records["srbench"]["id"], records["spatialviz"]["item"]["id"]
    assert tuple(results[f"PFHP_{sr}_result.png"][0, 0]) == FAMILY_LOOKS["srbench"].background  # a family record
    assert tuple(results[f"PFHP_{sv}_result.png"][0, 0]) == DEFAULT.background_colour  # a bare item: the default
    again = runner.invoke(app, [*args, "--out", str(tmp_path / "plain"), "--look", "default"])
    assert again.exit_code == 0, again.output
    plain = np.asarray(Image.open(tmp_path / "plain" / "prediction_results" / f"PFHP_{sr}_result.png"))
    assert tuple(plain[0, 0]) == DEFAULT.background_colour
    bad = runner.invoke(app, [*args, "--out", str(tmp_path / "bad"), "--look", "sepia"])
    assert bad.exit_code == 2 and bad.stderr.strip().startswith("error: --look: must be one of family, default")
    assert not (tmp_path / "bad").exists()


# -- 2-D step images (`render-item --images`) follow the same look ----------------------------------


def step_pixel(image, record: dict, look, point) -> np.ndarray:
    """The step image's pixel at a sheet point (cell units, y up) of a family record (no rotations or
    flips: the result is seen unturned)."""
    from foldsim.render.item_geometry import item_trace
    from foldsim.render.item_images import ITEM_STYLE, family_unit, item_frame

    trace = item_trace(record["item"])
    sheet = trace.item.sheet
    frame = item_frame(trace, ITEM_STYLE, 1.0 if look is None else family_unit(trace))
    [(x, y)] = frame.pixels(np.array([point[0] - sheet.cols / 2, point[1] - sheet.rows / 2]))
    return np.asarray(image)[int(y / ITEM_STYLE.supersample), int(x / ITEM_STYLE.supersample)].astype(int)


@pytest.mark.parametrize("name", list(LEVELS))
def test_step_images_in_the_family_look(records, name):
    """The 2-D step images read the same look as the 3-D frames: the result's holes in the family's
    colour (the default look's are green), grid lines only on a grid family's paper, each hole a
    circle of the family's radius; the default look (--look default, a bare item, MentalBlackboard's
    family) is the same bytes as before, drawn with no look."""
    from foldsim.render.item_images import item_step_images

    record, look = records[name], FAMILY_LOOKS[name]
    painted = dict(item_step_images(record["item"], item_name="x", look=look_of(record)))
    plain = dict(item_step_images(record["item"], item_name="x"))
    assert list(painted) == list(plain) and painted["x_result.png"].size == plain["x_result.png"].size
    assert tuple(np.asarray(painted["x_result.png"])[0, 0]) == look.background
    sheet = record["item"]["sheet"]
    radius = look.radius(sheet["cols"], sheet["rows"])
    holes, sized = holes_of(record), 0
    for x, y in holes:
        assert (step_pixel(painted["x_result.png"], record, look, (x, y)) <= np.array(look.hole_colour) + 40).all()
        green = step_pixel(plain["x_result.png"], record, None, (x, y))
        assert green[1] > 100 and green[0] < 60, green
        # the family's circle: dark at 0.7 of its radius, paper at 1.4 (where no other hole, line or edge is near)
        rim = x + 1.4 * radius
        if (any(np.hypot(rim - hx, y - hy) < 1.5 * radius for hx, hy in holes if (hx, hy) != (x, y))
                or abs(rim - round(rim)) < 0.08):
            continue
        assert (step_pixel(painted["x_result.png"], record, look, (x + 0.7 * radius, y)) <= 60).all()
        assert (step_pixel(painted["x_result.png"], record, look, (rim, y)) >= 200).all()
        sized += 1
    assert sized
    lines = [step_pixel(painted["x_result.png"], record, look, point) for point in line_points(record, look)]
    if look.grid:
        assert lines and all(p.max() < 235 for p in lines), lines
    else:
        assert all((p >= 250).all() for p in lines), lines
    for other in (look_of(record, "default"), look_of(record["item"]), look_of({**record, "family": "mentalblackboard"})):
        assert other is None
        again = dict(item_step_images(record, item_name="x", look=other))
        assert all(again[k].tobytes() == plain[k].tobytes() for k in plain)


def test_render_item_images_follow_the_look(records, tmp_path):
    """`render-item --images` draws a family record in its look (its black holes), a bare item and
    `--look default` in the default look (green holes), and refuses an unknown --look for images alone."""
    items = tmp_path / "items.json"
    record = records["spatialviz"]
    bare = {**record["item"], "id": "bare"}
    items.write_text(json.dumps([record, bare]))
    runner = CliRunner()
    args = ["render-item", str(items), "--images"]
    for out, extra in (("family", []), ("plain", ["--look", "default"])):
        result = runner.invoke(app, [*args, "--out", str(tmp_path / out), *extra])
        assert result.exit_code == 0, result.output

    def result_image(out: str, name: str) -> Image.Image:
        return Image.open(tmp_path / out / "img_text_outputs" / name / "img" / f"{name}_result.png")

    (x, y), look = holes_of(record)[0], FAMILY_LOOKS["spatialviz"]
    hole = step_pixel(result_image("family", record["id"]), record, look, (x, y))
    assert (hole <= 40).all(), hole
    for out, name in (("family", "bare"), ("plain", record["id"]), ("plain", "bare")):
        green = step_pixel(result_image(out, name), record, None, (x, y))
        assert green[1] > 100 and green[0] < 60, (out, name, green)
    assert (result_image("plain", "bare").tobytes() == result_image("family", "bare").tobytes())
    bad = runner.invoke(app, [*args, "--out", str(tmp_path / "bad"), "--look", "sepia"])
    assert bad.exit_code == 2 and bad.stderr.strip().startswith("error: --look: must be one of family, default")
    assert not (tmp_path / "bad").exists()
