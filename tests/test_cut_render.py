"""3-D motion of fold-and-cut items on polygon sheets (foldsim.render.polygon_motion, `foldsim
render-item`): the motion ends exactly on the engine's states, the cut-outs are holes that ride on
their layers (pixels sampled), the command's files, bounds and one-line errors. CPU only, EGL
offscreen (PYOPENGL_PLATFORM=egl)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

import hostile as H
from cli_invoke import invoke
from foldsim.cutfold import cut_item_from_record
from foldsim.errors import InputError
from foldsim.record_kinds import read_cut_item
from foldsim.render.animation import AnimationOptions, top_view
from foldsim.render.polygon_motion import PolygonMotion
from foldsim.render.scene import project

#: docs/cutting.md's example: a group of two corner folds, a snapped Rate fold, a partial fold
HEXAGON = {"id": "hexagon", "sheet": {"preset": "hexagon"},
           "steps": [{"group": [{"type": "angle", "p1": ["4/9", 0], "p2": [0, "4/9"]},
                                {"type": "angle", "p1": [1, "4/9"], "p2": ["5/9", 0]}]},
                     {"type": "Hori_Right", "rate": "1/2", "snap": 1},
                     {"type": "Hori_Left", "rate": "1/2", "layers": 2}],
           "cuts": [{"circle": {"centre": [250, 200], "radius": 35}},
                    {"polygon": [[220, 150], [265, 150], [265, 210], [220, 210]]}]}
#: the square folded in half (its right half over the left), a square cut across the crease
HALF = {"id": "half", "sheet": {"preset": "square"}, "steps": [{"type": "Hori_Left", "rate": "1/2"}],
        "cuts": [{"polygon": [[150, 150], [200, 150], [200, 200], [150, 200]]}]}
#: a line of direction (3, 4) on the house
HOUSE = {"id": "house", "sheet": {"preset": "house"},
         "steps": [{"type": "line", "p1": [100, 0], "p2": [103, 4]}, {"type": "Vert_Top", "rate": "1/3"}],
         "cuts": [{"polygon": [[120, 280], [160, 280], [140, 320]]}]}
SMALL = AnimationOptions(width=96, height=72, fps=4, seconds_per_action=0.5, hold_seconds=0.25, captions="none")


def exact_placed(motion: PolygonMotion, k: int) -> np.ndarray:
    """float[T, 3, 2]: every triangle of the motion's mesh in state k, from the engine's exact
    isometries (one rounding per coordinate), in the motion's normalised units."""
    states = [layers for step in motion.result.states for layers in step]
    out = []
    for f, layer in enumerate(motion.result.final):
        [iso] = [cand.iso for cand in states[k] if _contains(cand, layer)]
        for part in layer.parts:
            for j in range(1, len(part) - 1):
                out.append([[float((c - o) / motion.unit) for c, o in zip(iso.apply(p), motion.origin)]
                            for p in (part[0], part[j], part[j + 1])])
    return np.asarray(out)


def _contains(candidate, layer) -> bool:
    from foldsim.polygons import point_in_polygon

    piece = layer.parts[0]
    centre = (sum(p[0] for p in piece) / len(piece), sum(p[1] for p in piece) / len(piece))
    return any(point_in_polygon(centre, part) > 0 for part in candidate.parts)


@pytest.mark.parametrize("record", [HEXAGON, HALF, HOUSE], ids=lambda r: r["id"])
def test_the_motion_ends_on_every_exact_state(record):
    """Each fold's last frame (progress 1) is the engine's state after it, exactly placed (no
    accumulated motion error), and each fold starts from the state before it; the last state is the
    final one the cut-outs come from, its faces stacked bottom to top."""
    motion = PolygonMotion.of(cut_item_from_record(record), SMALL)
    n = len(motion.folds)
    assert n == sum(len(s["group"]) if "group" in s else 1 for s in record["steps"])
    for j in range(1, n + 1):
        assert np.array_equal(motion.during(j, 1.0), motion.still(j))
        start = motion.during(j, 0.0)
        assert np.abs(start - motion.still(j - 1)).max() < 1e-12
        assert np.abs(motion.still(j)[..., :2] - exact_placed(motion, j)).max() < 1e-12
    heights = motion.still(n)[:, 0, 2]
    assert np.array_equal(np.argsort(heights[np.unique(motion.face, return_index=True)[1]], kind="stable"),
                          np.arange(len(motion.result.final)))


def test_a_flap_turns_over_the_top():
    """Halfway through folding the square's right half over its left, the flap stands up (toward
    the viewer) above the crease; the staying half lies flat."""
    motion = PolygonMotion.of(cut_item_from_record(HALF), SMALL)
    middle = motion.during(1, 0.5)
    moving = motion.folds[0].moving[motion.face]
    assert moving.any() and (~moving).any()
    assert np.abs(middle[moving][..., 0]).max() < 1e-9  # x = 0: the crease's line, the flap upright
    assert middle[moving][..., 2].max() > 1.9  # its far edge 2 units up
    assert np.abs(middle[~moving][..., 2]).max() < 1e-9


def _pixel(frame: np.ndarray, point3d, opts) -> np.ndarray:
    col, row = project(np.asarray([point3d], float), opts)[0]
    return frame[int(round(row - 0.5)), int(round(col - 0.5))]


def test_cut_outs_are_holes_riding_on_their_layers():
    """Pixels of the result image (the opened sheet from above): the background at the centre of
    every cut-out piece, paper away from them; and on the folded paper with its holes (the folding
    video's last frame), the background where the cut went through every layer."""
    opts = replace(SMALL, width=320, height=240)
    motion = PolygonMotion.of(cut_item_from_record(HALF), opts)
    looks = None
    with motion.renderer() as renderer:
        looks = motion.looks()
        result = np.asarray(motion.result_image(renderer, looks))
        *_, (last, cut, _, crease) = motion.folding()
        assert crease is None  # the cut: no fold, no crease rod
        [folded] = motion.draw(renderer, [(last, cut, "", None)], looks)
    top = top_view(motion.opts)
    background, paper = np.asarray(opts.background_colour), np.asarray(opts.front_colour)
    assert len(motion.result.cutouts) == 1
    for piece in motion.result.cutouts[0].pieces:
        centre = np.mean([[float((c - o) / motion.unit) for c, o in zip(p, motion.origin)] for p in piece], axis=0)
        assert np.abs(_pixel(result, [*(centre - motion.centre[:2]), -motion.centre[2]], top)
                      - background).max() <= 2
    away = np.array([-1.5, -1.5])  # the sheet's lower-left quarter: paper, no cut
    assert np.abs(_pixel(result, [*(away - motion.centre[:2]), -motion.centre[2]], top).astype(int)
                  - paper).max() <= 60  # lit paper, not the background
    # the folded square: x from -2 to 0; the cut [150, 180] x [150, 200] (normalised about (180, 180) / 90)
    hole = np.array([-1 / 6, -1 / 18, motion.still(1)[:, 0, 2].max()])
    assert np.abs(_pixel(folded, hole - motion.centre, motion.opts) - background).max() <= 2
    beside = np.array([-1.5, -1.5, motion.still(1)[:, 0, 2].max()])
    assert np.abs(_pixel(folded, beside - motion.centre, motion.opts).astype(int) - background).max() > 60


def test_render_item_writes_polygon_media(tmp_path):
    """`render-item --video --frames` on a batch: fold-and-cut items get both videos, both frame
    folders and the result image; a cube net, a fold that tears and an unreadable cut record are
    one line each; the others are drawn."""
    tearing = {**HEXAGON, "id": "tearing"}
    tearing["steps"] = [*HEXAGON["steps"][:2], {"type": "Hori_Left", "rate": "1/2", "layers": 1}]
    net = {"id": "cross", "cells": [[1, 2], [0, 1], [1, 1], [2, 1], [3, 1], [1, 0]]}
    source = tmp_path / "items.jsonl"
    rows = [HALF, tearing, net, {**HALF, "id": "bad", "cuts": [{"polygon": [[0, 0], [1, 1]]}]}, HOUSE]
    source.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = tmp_path / "out"
    done = invoke("render-item", source, "--out", out, "--video", "--frames", "--cadence", "smooth", "--fps", "4",
                  "--seconds-per-action", "0.5", "--width", "96", "--height", "72", "--json",
                  env={"PYOPENGL_PLATFORM": "egl"})
    assert done.exit_code == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["rendered"] == ["half", "house"]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 3 and all(line.startswith(f"error: {source}: ") for line in lines)
    assert "tearing: not_realizable: step 3" in lines[0]
    assert "cross: is a cube net" in lines[1] and "bad: cuts[0].polygon" in lines[2]
    for name in ("half", "house"):
        assert (out / "folding_videos" / f"PF_{name}_animation.mp4").stat().st_size > 0
        assert (out / "unfolding_videos" / f"UP_{name}_animation.mp4").stat().st_size > 0
        assert (out / "prediction_results" / f"PFHP_{name}_result.png").stat().st_size > 0
    # smooth cadence at 4 fps: a hold of 2 frames, 2 frames a fold, 2 frames of the cut
    assert len(list((out / "folding_frames" / "PF_half").iterdir())) == 2 + 2 + 2
    assert len(list((out / "unfolding_frames" / "UP_house").iterdir())) == 2 + 2 * 2 + 2


def test_render_item_bounds_and_modalities(tmp_path):
    """The bounds are today's (frame side, fps, frames per action: exit 2 before any work); --images
    is refused for a fold-and-cut item with one line; file names never leave --out."""
    source = tmp_path / "items.json"
    source.write_text(json.dumps([{**HALF, "id": "../../escape"}]))
    out = tmp_path / "out"
    for flags in (["--width", "5000"], ["--fps", "1000"], ["--seconds-per-action", "1e9"]):
        done = invoke("render-item", source, "--out", out, "--frames", *flags)
        assert done.exit_code == 2 and len(done.stderr.strip().splitlines()) == 1, flags
        assert not out.exists()
    done = invoke("render-item", source, "--out", out, "--images")
    assert done.exit_code == 1 and "--images: 2-D step images are not drawn for fold-and-cut items" in done.stderr
    done = invoke("render-item", source, "--out", out, "--frames", "--width", "64", "--height", "48",
                  env={"PYOPENGL_PLATFORM": "egl"})
    assert done.exit_code == 0, done.stderr
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p != source]
    assert written and all(out in p.parents for p in written)


@pytest.mark.parametrize("kind", H.KINDS)
def test_hostile_cut_records_before_drawing(kind):
    """Every place of a cut record made hostile (tests/hostile.py): read and moved (no GL), or one
    line naming the item; never another exception."""
    for path in H.paths(HALF):
        record = H.hostile(HALF, path, kind, 1)
        try:
            PolygonMotion.of(read_cut_item(record, 0, "line 1"), SMALL)
        except InputError as error:
            assert "\n" not in str(error) and len(str(error)) < 400


def test_the_crease_rod_lies_on_the_fold_line_over_the_paper_that_folds():
    """The square folded in half: the rod runs along x = 0 (normalised) the whole height of the
    sheet; the hexagon's partial fold (top 2 layers): only where those layers cross the line."""
    half = PolygonMotion.of(cut_item_from_record(HALF), SMALL)
    [[start, end]] = half.folds[0].crease
    assert start[0] == end[0] == 0 and sorted([start[1], end[1]]) == [-2, 2]
    hexagon = PolygonMotion.of(cut_item_from_record(HEXAGON), SMALL)
    partial = hexagon.folds[-1].crease
    full = hexagon.folds[-2].crease
    assert len(partial) == 1 and len(full) == 1
    assert np.ptp(partial[0, :, 1]) < np.ptp(full[0, :, 1])  # shorter: the top layers only
    frames = list(hexagon.folding())
    assert sum(crease is not None for *_, crease in frames) == len(hexagon.folds) * SMALL.frames_per_action()


def test_reference_cadence_counts_are_mentalblackboards():
    """At the reference cadence a fold is 7 frames from start to end and the cut 3 (no first hold);
    an unfold 6 frames and 1 unfolded, then the result 1: the counts of animation.REFERENCE_FRAMES."""
    motion = PolygonMotion.of(cut_item_from_record(HEXAGON), AnimationOptions.preset("reference", width=96, height=72))
    folding, unfolding = list(motion.folding()), list(motion.unfolding())
    assert len(folding) == 4 * 7 + 3 and len(unfolding) == 4 * (6 + 1) + 1
    assert np.array_equal(folding[0][0], motion.during(1, 0.0)) and np.array_equal(folding[6][0], motion.still(1))
    assert np.array_equal(unfolding[-1][0], motion.still(0)) and unfolding[-1][1]
