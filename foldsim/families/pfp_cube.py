"""PFP's 3-D tasks, keyed exactly (issue 25; docs/nets.md, "pfp-cube"): net→cube ("3D Folding":
which cube does the net fold into?) and cube→net ("2D Unfolding": which net folds into the cube
shown?), four options, easy and hard as PFP defines them, with patterned faces (PFP's textures
turn with their faces).

- net→cube: the options are the cube in four poses; hard: four different front sides, each at a
  random turn; easy: one front side at its four turns.
- cube→net: the options are nets; hard: four different layouts, each in a random pose; easy: one
  layout in four different poses.

Three options are relabelled (PFP's distractor: another of the 30 labelled cubes, patterns carried
with their labels). PFP draws the relabelling from all 30, identity included, and does not check
what the picture shows; here each one is drawn again until the engine shows it is wrong (its
picture is no view of the cube / its net folds into no cube with the view) and unlike every other
option.
"""

from __future__ import annotations

import json
import random

from ..nets import turned_cube, view_of
from . import net_options as N

TASKS = ("net_to_cube", "cube_to_net")
QUESTIONS = {
    "net_to_cube": ("The top image shows a net, printed on the outside when folded. Below are four cubes, A to D. "
                    "Which cube can the net be folded into? Answer with the option's letter."),
    "cube_to_net": ("The top image shows a cube. Below are four nets, A to D, each printed on the outside when folded. "
                    "Which net folds into the cube shown? Answer with the option's letter."),
}
TYPES = {"net_to_cube": "_2DTo3D_N", "cube_to_net": "_3DTo2D_N"}  # PFP's export type names
MAX_TRIES = 30  # relabellings drawn per distractor before the candidate item is dropped


class PfpCubeFamily(N.CubeChoiceFamily):
    name = "pfp-cube"
    summary = ("PFP net→cube and cube→net: which cube the net folds into, which net folds into the cube shown; "
               "easy and hard as PFP draws poses and layouts; patterned faces")
    levels = {"easy": {"faces": "patterns", "labels": list(N.SYMBOL_LABELS), "tasks": list(TASKS),
                       "poses": "one front side at its 4 turns; nets: one layout in 4 poses"},
              "hard": {"faces": "patterns", "labels": list(N.SYMBOL_LABELS), "tasks": list(TASKS),
                       "poses": "4 different front sides; nets: 4 different layouts"}}
    native_file = "answer.jsonl"
    distractor_rules = ("relabelled",)

    def generate(self, count, seed, level=None, on_progress=None, first=0):
        return N.generate_cube_records(self, count, seed, level, TASKS, self.item, on_progress, first)

    def item(self, rng: random.Random, level: str, task: str, number: int) -> dict | None:
        """One candidate record (None when a distractor cannot be drawn in MAX_TRIES)."""
        labels = self.levels[level]["labels"]
        period = N.periods("patterns", labels)
        cube = N.random_cube(rng, labels, "patterns")
        info = {"task": task, "faces": "patterns", "labels": labels, "cube": [N.shown_json(s) for s in cube],
                "labelling": N.labelling_index(cube, labels), "pfpType": TYPES[task]}
        used = {info["labelling"]}  # the key's labelled cube and each distractor's: four different cubes
        if task == "net_to_cube":
            layout, pose = rng.randrange(len(N.layouts())), rng.randrange(24)
            net = N.net_for_cube(N.layouts()[layout], turned_cube(cube, pose))
            info["question"] = {"net": N.net_to_record(net), "layout": layout, "pose": pose}
            if level == "hard":
                orientations = [4 * side + rng.randrange(4) for side in rng.sample(range(6), 4)]
            else:
                side = rng.randrange(6)
                orientations = [4 * side + k for k in rng.sample(range(4), 4)]
            key = N.option(None, None, view=view_of(cube, orientations[0]), orientation=orientations[0])
            seen = {N.view_key(view_of(cube, orientations[0]), period)}
            distractors = []
            for orientation in orientations[1:]:
                for _ in range(MAX_TRIES):
                    labelling = rng.choice([j for j in range(30) if j not in used])
                    view = view_of(N.relabelled(cube, labels, labelling), orientation)
                    if not N.shows(cube, view, period) and N.view_key(view, period) not in seen:
                        seen.add(N.view_key(view, period))
                        used.add(labelling)
                        distractors.append(N.option("relabelled", {"labelling": labelling, "orientation": orientation},
                                                    view=view, orientation=orientation))
                        break
                else:
                    return None
        else:
            orientation = rng.randrange(24)
            view = view_of(cube, orientation)
            info["question"] = {"view": [N.shown_json(s) for s in view], "orientation": orientation}
            if level == "hard":
                placements = [(layout, rng.randrange(24)) for layout in rng.sample(range(len(N.layouts())), 4)]
            else:
                layout = rng.randrange(len(N.layouts()))
                placements = [(layout, pose) for pose in rng.sample(range(24), 4)]
            layout, pose = placements[0]
            net = N.net_for_cube(N.layouts()[layout], turned_cube(cube, pose))
            key = N.option(None, None, net=net, layout=layout, pose=pose)
            seen = {N.net_picture_key(net, period)}
            distractors = []
            for layout, pose in placements[1:]:
                for _ in range(MAX_TRIES):
                    labelling = rng.choice([j for j in range(30) if j not in used])
                    wrong = N.relabelled(cube, labels, labelling)
                    net = N.net_for_cube(N.layouts()[layout], turned_cube(wrong, pose))
                    if not N.shows(wrong, view, period) and N.net_picture_key(net, period) not in seen:
                        seen.add(N.net_picture_key(net, period))
                        used.add(labelling)
                        distractors.append(N.option("relabelled", {"labelling": labelling, "layout": layout,
                                                                   "pose": pose}, net=net, layout=layout, pose=pose))
                        break
                else:
                    return None
        record = N.finish_record(self.name, number, level, QUESTIONS[task], key, distractors, info, rng)
        record["native"] = [{"image": f"./imgs/{record['questionImg']}", "answer": record["answer"]}]
        return record

    def native_text(self, rows):
        """PFP's answer.jsonl: one {"image", "answer"} line per item."""
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)

    def count_space(self, level, on_progress=None):
        """The level's space from net_space (`cube_space`), the options placed as PFP's easy / hard
        draw them: net_to_cube, easy one front side at its 4 turns in some order, hard 4 different
        front sides each at a turn; cube_to_net, easy one layout in 4 different poses, hard 4
        different layouts each in a pose."""
        from .cube_space import cube_choice_space, ordered

        name = self.level(level)
        layouts = len(N.layouts())
        if name == "easy":
            views, nets = 6 * ordered(4, 4), layouts * ordered(24, 4)
        else:
            views, nets = ordered(6, 4) * 4 ** 4, ordered(layouts, 4) * 24 ** 4
        space = cube_choice_space(self.name, name, self.levels[name]["faces"], {
            "net_to_cube": {"question": "net", "arrangements": views},
            "cube_to_net": {"question": "view", "arrangements": nets}})
        if on_progress is not None:
            on_progress(space["configurations"])
        return space


PFP_CUBE = PfpCubeFamily()
