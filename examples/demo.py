"""The README's main job (`make demo`): a small MentalBlackboard-style dataset with every modality.

One prediction item per structure group (9 groups, 1 to 6 actions), written to demo-out/ as the
benchmark's JSON plus text grids, 2-D step images, and the 3-D animation both as frame folders (what
a model is shown, `foldingFramesDir`) and as MP4s, with the result images; then the generated JSON is
re-simulated and compared (`foldsim check`), and the paths to look at are printed. The 3-D media use
the dataset defaults (the reference cadence: ~7 frames per fold, 2 fps folding / 3 fps unfolding
videos, camera straight down, captions in words) at 640x480; about 30 s on a 2-core CPU. Run it
again and finished items are skipped (delete demo-out/ to start over).

Then the evaluation end of the road, with no model needed: a small multiple-choice set (the wrong
options are the simulator's answers to named mistakes), two answer files written here, one
always right and one that unfolds across the wrong crease whenever that option is offered,
scored by `foldsim score choice` (its confusion table names the mistake) and drawn side by side by
`foldsim report` into demo-out/report.html. These answers are synthetic stand-ins; `foldsim eval`
asks a real model (README, "Evaluate a model").

Then the general engine: two items of each peer benchmark (SpatialViz-Bench, VisFactor VZ2,
SRBench, and the record families PFP, VisWorld-Eval, STARE, SpatialViz's cube and PFP's cube tasks) in its own
format and look, audited against the physics, the SpatialViz items animated in 3-D and written as
FOLD files, and one PFP item folded, cut and opened in 3-D.

Last, a cube net (docs/nets.md): its flat picture, one view of its cube as the exact engine
computes it, and a small 3-D video of it folding (18 frames at 240x180), in demo-out/nets/.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from foldsim.check import check_file
from foldsim.cli import app
from foldsim.codes import code_of_entry
from foldsim.dataset.generate import GenerateOptions, write_dataset
from foldsim.dataset.media import SHEET_FILE, MediaRequest, default_workers
from foldsim.nets import Pattern, make_net, net_from_rows
from foldsim.render.images import write_named_images
from foldsim.render.net_images import flat_net_image, net_cube_view
from foldsim.rules import GROUPS

OUT = Path("demo-out")
SEED = 2024
CHOICE_ITEMS = 18
MISTAKE = "wrong_crease"


def foldsim(*args: object) -> int:
    """Run a foldsim command in this process (as the `foldsim` script would) and return its exit code."""
    return app(args=[str(a) for a in args], prog_name="foldsim", standalone_mode=False) or 0


def synthetic_answers(records: list[dict], mistake: str | None) -> list[dict]:
    """Answers of a stand-in model: the right label, or the option made by `mistake` where offered."""
    def pick(record: dict) -> str:
        wrong = [o["label"] for o in record["options"] if o.get("error") == mistake]
        return wrong[0] if wrong else record["answer"]
    return [{"id": r["id"], "response": f"I fold it step by step. Answer: {pick(r)}"} for r in records]


def evaluation_demo() -> int:
    """A choice set, two synthetic answer files, the score of one and the report page of both."""
    folder = OUT / "choice"
    print(f"\ngenerating {CHOICE_ITEMS} multiple-choice items into {folder}/ ...")
    code = foldsim("generate", "--task", "choice", "--count", CHOICE_ITEMS, "--seed", SEED, "--out", folder,
                   "--images", "--text")
    data = folder / "PFHP_Choice_Data.json"
    records = json.loads(data.read_text())
    answers = {}
    for name, mistake in (("oracle", None), ("mirror-model", MISTAKE)):
        answers[name] = folder / f"answers-{name}.json"
        answers[name].write_text(json.dumps(synthetic_answers(records, mistake), indent=1))
    print(f"\nscoring the stand-in model that unfolds across the wrong crease ({answers['mirror-model']}):")
    code |= foldsim("score", "choice", data, answers["mirror-model"])
    code |= foldsim("report", data, answers["oracle"], answers["mirror-model"], "--name", "oracle",
                    "--name", "mirror-model", "--out", OUT / "report.html")
    return code


FAMILY_SETS = (("spatialviz", "L2"), ("visfactor", "normal"), ("srbench", "2"),
               # the record families: fold and cut (PFP) and the cube nets (STARE, SpatialViz, PFP)
               ("pfp", "A"), ("visworld", "L1"), ("stare", "all_vis"), ("spatialviz-cube", "patterns"),
               ("pfp-cube", "hard"))


def families_demo() -> int:
    """The general engine: two items of each peer benchmark in its own format and look, audited
    against the physics, one of them animated in 3-D and written as a FOLD file."""
    code = 0
    for name, level in FAMILY_SETS:
        folder = OUT / "families" / name
        print(f"\ngenerating 2 {name} items (level {level}) into {folder}/ ...")
        code |= foldsim("generate", "--family", name, "--level", level, "--count", 2, "--seed", SEED,
                        "--out", folder, "--workers", 1)
        code |= foldsim("audit", "--family", name, folder / f"{name}_items.json")
    items = OUT / "families" / "spatialviz" / "spatialviz_items.json"
    code |= foldsim("render-item", items, "--out", OUT / "families" / "spatialviz-3d", "--video")
    code |= foldsim("fold", items, "--out", OUT / "families" / "fold")
    # a PFP item's folding and cutting in 3-D: its cut item (info.cutItem) through render-item
    pfp_items = json.loads((OUT / "families" / "pfp" / "pfp_items.json").read_text(encoding="utf-8"))
    cut_items = OUT / "families" / "pfp-3d" / "pfp_cut_items.json"
    cut_items.parent.mkdir(parents=True, exist_ok=True)
    cut_items.write_text(json.dumps([r["info"]["cutItem"] for r in pfp_items[:1]], indent=1) + "\n", encoding="utf-8")
    code |= foldsim("render-item", cut_items, "--out", OUT / "families" / "pfp-3d", "--video")
    return code


def nets_demo() -> None:
    """A cube net with patterns in every turn (two mirrored): the flat net, its cube in orientation 5
    as the exact engine views it, and the net folding into the cube in 3-D (a short, small MP4)."""
    from dataclasses import replace

    from foldsim.render.nets import NET_MOTION, write_net_folding  # the 3-D renderer: imported when used

    folder = OUT / "nets"
    base = net_from_rows([".1..", "2345", ".6.."])
    patterns = (Pattern(0), Pattern(1), Pattern(0, True), Pattern(2), Pattern(3), Pattern(1, True))
    net = make_net(base.cells, base.labels, patterns, hinges=base.hinges, id="cross")
    print(f"\ndrawing a cube net and folding it in 3-D into {folder}/ ...")
    write_named_images(folder, [("cross_net.png", flat_net_image(net)), ("cross_cube_5.png", net_cube_view(net, 5))])
    small = replace(NET_MOTION, width=240, height=180, fps=12, seconds_per_action=1.0, hold_seconds=0.25)
    write_net_folding(net, folder / "cross_folding.mp4", opts=small)


def main() -> int:
    options = GenerateOptions("prediction", tuple(GROUPS), count=1, seed=SEED)
    request = MediaRequest.of(video=True, frames=True, images=True, text=True)  # the reference cadence
    workers = default_workers()
    print(f"generating {len(GROUPS)} items (one per structure group) into {OUT}/ with {workers} worker(s)...")
    path, records, report = write_dataset(options, OUT, request, workers=workers)
    print(f"media: {len(report.rendered)} rendered, {len(report.skipped)} already complete, {len(report.failed)} failed")
    for item_id, reason in report.failed.items():
        print(f"  failed {item_id}: {reason}", file=sys.stderr)

    check = check_file(path)
    summary = check.summary()
    print(f"conformance: {summary['match']}/{summary['items']} records re-simulate to their recorded result")

    print("\nitems:")
    for group, record in zip(GROUPS, records):
        codes = ",".join(code_of_entry(entry) for entry in record["foldingTypes"])
        print(f"  {record['id']:8} {group:25} {record['numberofFoldingSteps']} actions, "
              f"{len(record['initialHoles'])} punch(es) -> {record['totalNumberofHoles']:2} holes   {codes}")
    first = records[-1]  # the longest item is the most interesting to watch
    print("\nwhere to look:")
    print(f"  dataset JSON        {path}")
    print(f"  numbered sheet      {OUT / SHEET_FILE}")
    print(f"  folding frames      {OUT / first['foldingFramesDir']}/  (what a model is shown)")
    print(f"  folding video       {OUT / first['foldingVideo']}")
    print(f"  unfolding frames    {OUT / first['unfoldingFramesDir']}/")
    print(f"  unfolding video     {OUT / first['unfoldingVideo']}")
    print(f"  result image        {OUT / first['resultImg']}")
    print(f"  2-D step images     {OUT / 'img_text_outputs' / first['id'] / 'img'}/")
    print(f"  text grids          {OUT / 'img_text_outputs' / first['id'] / 'text'}/")
    print(f"  per-item manifests  {OUT / 'manifest'}/")
    evaluated = evaluation_demo()
    families = families_demo()
    nets_demo()
    print(f"\n  report page         {OUT / 'report.html'}  (open it in a browser: scores, plots, every item)")
    print(f"  peer benchmarks     {OUT / 'families'}/<family>/  (items, their own format, composite images)")
    print(f"  a family item in 3-D {OUT / 'families' / 'spatialviz-3d' / 'folding_videos'}/")
    print(f"  a PFP item cut in 3-D {OUT / 'families' / 'pfp-3d'}/  (the pfp composite: families/pfp/pfp_00001.png)")
    print(f"  FOLD files          {OUT / 'families' / 'fold'}/  (open them in an origami tool)")
    print(f"  a cube net          {OUT / 'nets'}/  (flat net, a cube view, the net folding in 3-D)")
    return 0 if check.all_match and not report.failed and not evaluated and not families else 1


if __name__ == "__main__":
    sys.exit(main())
