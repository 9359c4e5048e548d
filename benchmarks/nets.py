"""nets: cube-net views per second (net x labelling x orientation: the three faces a view shows,
with their patterns' turns) on the batched engine (`foldsim.kernels.nets.net_views`: fold every
net, then every labelling and orientation, in one compiled call), beside the plain per-item loop
(`foldsim.nets_reference.roll` on each item, rolling a cube from scratch), in the same run.

Two spaces: the 11 cube nets x the 30 labelled cubes x 24 orientations (7,920 views), and x all 720
label assignments (190,080). Patterns travel with labels (label i: i % 4 quarter turns, mirrored
for labels 1 and 4), so the turns are not all zero. The loop's rate is measured on a seeded sample
and extrapolated; its views are compared with the engine's (disagreements must be 0).
"""

from __future__ import annotations

import jax
import numpy as np
from rich.table import Table

from foldsim import net_space as S
from foldsim import nets_reference as R
from foldsim.kernels import nets as K
from foldsim.nets import Pattern, make_net, net_arrays

from .harness import Context, first_and_steady, fmt_rate, fmt_seconds, rate, timed_loop

PATTERNS = tuple(Pattern(turn=i % 4, mirror=i in (1, 4)) for i in range(6))


def space_inputs(labellings: str) -> tuple[list, tuple]:
    """The 11 nets and the engine's inputs for every labelling of the kind (device-resident)."""
    nets = S.cube_nets()
    arrays = net_arrays(nets, S.CUBE_SIDES)
    sides = np.asarray(K.fold_batch(arrays.cells, arrays.parent, arrays.turn, arrays.present).side)
    if labellings == "cube":
        labels = np.array([[S.labels_for_cube(s, cube) for cube in S.cube_labellings()] for s in sides], np.int32)
    else:
        labels = np.ascontiguousarray(np.broadcast_to(np.array(S.all_assignments(), np.int32), (len(nets), 720, 6)))
    turns = np.array([p.turn for p in PATTERNS], np.int32)[labels]
    mirrors = np.array([p.mirror for p in PATTERNS], bool)[labels]
    inputs = (arrays.cells, arrays.parent, arrays.turn, arrays.present, labels, turns, mirrors,
              np.arange(S.ORIENTATIONS, dtype=np.int32))
    return nets, tuple(jax.device_put(x) for x in inputs)


def run(ctx: Context) -> dict:
    batches = []
    for labellings in ("cube", "all"):
        nets, inputs = space_inputs(labellings)
        timing, (_, view) = first_and_steady(lambda: K.net_views(*inputs), ctx.options.repeats)
        n_nets, n_labellings, n_orientations = view.label.shape[:3]
        count = n_nets * n_labellings * n_orientations
        labels, label_view, turn_view, mirror_view = (np.asarray(x) for x in (inputs[4], view.label, view.turn, view.mirror))
        size = min(ctx.options.baseline_sample, count)
        sample = np.random.default_rng([ctx.options.seed, count]).choice(count, size, replace=False)
        items = []
        for flat in sample:
            n, l, o = np.unravel_index(flat, (n_nets, n_labellings, n_orientations))
            net = nets[n]
            items.append((make_net(net.cells, [str(i) for i in labels[n, l]], [PATTERNS[i] for i in labels[n, l]],
                                   hinges=net.hinges), int(o), (int(n), int(l), int(o))))
        for o in range(S.ORIENTATIONS):  # the reference's memo of the 24 turns, filled before timing
            R.orientation(o)
        seconds, rolled = timed_loop(items, lambda item: R.view(item[0], item[1]), f"rolling reference ({labellings})")
        disagreements = sum(
            [(str(label_view[n, l, o, w]), int(turn_view[n, l, o, w]), bool(mirror_view[n, l, o, w])) for w in range(3)]
            != list(r) for (_, _, (n, l, o)), r in zip(items, rolled))
        per_item = seconds / size
        batches.append({"labellings": labellings, "nets": int(n_nets), "labellings_per_net": int(n_labellings),
                        "orientations": int(n_orientations), "views": count,
                        "kernel": {**timing, "views_per_s": rate(count, timing["steady_s"])},
                        "reference": {"sample": size, "sample_s": seconds, "per_item_s": per_item,
                                      "batch_s": per_item * count, "extrapolated": size < count,
                                      "views_per_s": rate(1, per_item), "disagreements": int(disagreements)},
                        "speedup": per_item * count / timing["steady_s"]})
    return {"batches": batches}


def report(result: dict) -> list[Table]:
    table = Table("space", "views", "first call", "steady", "views/s", "rolling reference, one by one", "speedup",
                  title="nets: cube-net views (net x labelling x orientation) on the batched engine vs the "
                        "rolling reference per item", title_justify="left")
    for b in result["batches"]:
        ref = b["reference"]
        table.add_row(f"11 nets x {b['labellings_per_net']} labellings x 24", f"{b['views']:,}",
                      fmt_seconds(b["kernel"]["first_s"]), fmt_seconds(b["kernel"]["steady_s"]),
                      fmt_rate(b["kernel"]["views_per_s"]),
                      f"{fmt_seconds(ref['batch_s'])} ({fmt_rate(ref['views_per_s'])}/s, extrapolated from "
                      f"{ref['sample']}; {ref['disagreements']} disagree)", f"{b['speedup']:,.0f}x")
    return [table]
