"""SpatialViz-Bench's cube tasks, keyed exactly (issue 25; docs/nets.md, "spatialviz-cube"): cube
unfolding (which net CAN / CANNOT form the cube shown) and cube reconstruction (which view is the
net's cube; which colour is opposite X), with coloured faces (level "colours") or patterned faces
whose turn matters (level "patterns").

Every distractor is a named mistake (net_options), and the engine checks every option against the
question in all 24 orientations: SpatialViz's "transform" nets whose turned faces are all hidden,
and its reconstruction views that are in fact genuine, cannot occur here.
"""

from __future__ import annotations

import random

from ..nets import cube_key, turned_cube, view_of
from . import net_options as N

TASKS = ("can", "cannot", "view")
QUESTIONS = {
    "can": ("The top image shows a cube. Below it are four nets, A to D, each printed on the outside when folded. "
            "Which net CAN be folded to form the cube shown? Answer with the option's letter."),
    "cannot": ("The top image shows a cube. Below it are four nets, A to D, each printed on the outside when folded. "
               "Which net CANNOT be folded to form the cube shown? Answer with the option's letter."),
    "view": ("The top image shows a net, printed on the outside when folded. Below are four views of cubes, A to D. "
             "Which view shows the cube the net folds into? Answer with the option's letter."),
}
NET_MISTAKES = {"colours": ("swapped_opposite", "relabelled"),
                "patterns": ("swapped_opposite", "rotated_pattern", "mirrored_patterns", "relabelled")}
VIEW_MISTAKES = {"colours": ("mirrored_view", "opposite_shown"),
                 "patterns": ("mirrored_view", "opposite_shown", "rotated_view")}
WORDS = {
    "swapped_opposite": lambda d: f"{d['visible']} and {d['hidden']} are swapped, so {d['visible']} lies opposite "
                                  f"{d['opposite_of']}",
    "relabelled": lambda d: "its faces are arranged differently around the cube",
    "rotated_pattern": lambda d: f"the pattern on {', '.join(d['faces'])} is turned",
    "mirrored_patterns": lambda d: "its patterns are printed mirror-reversed",
    "forms_the_cube": lambda d: "it does form the cube",
    "mirrored_view": lambda d: "it shows the mirror image of the cube",
    "opposite_shown": lambda d: f"it shows {d['shows']} where the face opposite it belongs",
    "rotated_view": lambda d: f"the pattern on {d['face']} is turned",
}
MAX_TRIES = 20  # draws per distractor before the candidate item is dropped


def _wrong_cube(rule: str, cube, orientation: int, labels, rng: random.Random):
    """(cube, errorDetail) of a net mistake on `cube`, its view taken in `orientation`."""
    if rule == "swapped_opposite":
        return N.swapped_opposite(cube, orientation, rng)
    if rule == "rotated_pattern":
        return N.rotated_patterns(cube, orientation, rng)
    if rule == "mirrored_patterns":
        return N.mirrored_patterns(cube), {}
    labelling = rng.randrange(30)
    return N.relabelled(cube, labels, labelling), {"labelling": labelling}


def _wrong_view(rule: str, cube, rng: random.Random):
    """(view, errorDetail) of a view mistake on `cube`, from a random orientation."""
    orientation = rng.randrange(24)
    if rule == "mirrored_view":
        return view_of(N.mirror_cube(cube), orientation), {"orientation": orientation, "plane": "x"}
    position = rng.randrange(3)
    if rule == "opposite_shown":
        view = N.opposite_shown(cube, orientation, position)
        return view, {"orientation": orientation, "position": N.VIEW_NAMES[position], "shows": view[position][0]}
    turns = rng.randint(1, 3)
    view = N.rotated_view(view_of(cube, orientation), position, turns)
    return view, {"orientation": orientation, "position": N.VIEW_NAMES[position], "face": view[position][0],
                  "turns": turns}


class SpatialVizCubeFamily(N.CubeChoiceFamily):
    name = "spatialviz-cube"
    summary = ("SpatialViz-Bench cube unfolding and reconstruction: which net can / cannot form the cube shown, which "
               "view is the net's cube, which colour is opposite; coloured or patterned faces")
    levels = {"colours": {"faces": "colours", "labels": list(N.COLOUR_LABELS), "tasks": list(TASKS)},
              "patterns": {"faces": "patterns", "labels": list(N.SYMBOL_LABELS), "tasks": list(TASKS)}}
    native_file = "spatialviz_cube.json"
    distractor_rules = ("swapped_opposite", "relabelled", "rotated_pattern", "mirrored_patterns", "forms_the_cube",
                        "mirrored_view", "opposite_shown", "rotated_view")
    open_tasks = ("opposite",)

    def generate(self, count, seed, level=None, on_progress=None, first=0):
        return N.generate_cube_records(self, count, seed, level, TASKS, self.item, on_progress, first)

    def item(self, rng: random.Random, level: str, task: str, number: int) -> dict | None:
        """One candidate record (None when a distractor cannot be drawn in MAX_TRIES)."""
        style, labels = self.levels[level]["faces"], self.levels[level]["labels"]
        period = N.periods(style, labels)
        cube = N.random_cube(rng, labels, style)
        info = {"task": task, "faces": style, "labels": labels, "cube": [N.shown_json(s) for s in cube],
                "labelling": N.labelling_index(cube, labels)}
        if task == "view":
            made = self._view_item(rng, cube, style, period, info)
        else:
            made = self._net_item(rng, cube, style, period, info, task)
        if made is None:
            return None
        key, distractors, extra = made
        record = N.finish_record(self.name, number, level, QUESTIONS[task], key, distractors, info, rng)
        record.update(extra)
        record["native"] = self.native(record)
        return record

    def _net_item(self, rng, cube, style, period, info, task):
        """can / cannot: a view of the cube; nets of four different layouts."""
        orientation = rng.randrange(24)
        view = view_of(cube, orientation)
        info["question"] = {"view": [N.shown_json(s) for s in view], "orientation": orientation}
        layouts = rng.sample(range(len(N.layouts())), 4)

        def net_of(sides, layout):
            pose = rng.randrange(24)
            net = N.net_for_cube(N.layouts()[layout], turned_cube(sides, pose), N.FACE_STYLES[style])
            return net, {"layout": layout, "pose": pose}

        cubes = {cube_key(cube, period)}  # wrong nets fold into cubes unlike the key's and each other's

        def mistake(layout):
            for _ in range(MAX_TRIES):
                rule = rng.choice(NET_MISTAKES[style])
                wrong, detail = _wrong_cube(rule, cube, orientation, info["labels"], rng)
                if not N.shows(wrong, view, period) and cube_key(wrong, period) not in cubes:
                    cubes.add(cube_key(wrong, period))
                    net, placed = net_of(wrong, layout)
                    return rule, detail, net, placed
            return None

        if task == "can":
            net, placed = net_of(cube, layouts[0])
            key = N.option(None, None, net=net, **placed)
            distractors = []
            for layout in layouts[1:]:
                made = mistake(layout)
                if made is None:
                    return None
                rule, detail, wrong_net, placed = made
                distractors.append(N.option(rule, {**detail, **placed}, net=wrong_net, **placed))
            return key, distractors, {}
        made = mistake(layouts[0])
        if made is None:
            return None
        rule, detail, wrong_net, placed = made
        key = N.option(None, None, net=wrong_net, mistake={"rule": rule, **detail}, **placed)
        distractors = []
        for layout in layouts[1:]:
            net, placed = net_of(cube, layout)
            distractors.append(N.option("forms_the_cube", dict(placed), net=net, **placed))
        return key, distractors, {}

    def _view_item(self, rng, cube, style, period, info):
        """view: the cube's net; four views, one genuine; and which face is opposite one of them."""
        layout, pose = rng.randrange(len(N.layouts())), rng.randrange(24)
        net = N.net_for_cube(N.layouts()[layout], turned_cube(cube, pose), N.FACE_STYLES[style])
        info["question"] = {"net": N.net_to_record(net), "layout": layout, "pose": pose}
        orientation = rng.randrange(24)
        view = view_of(cube, orientation)
        key = N.option(None, None, view=view, orientation=orientation)
        seen = {N.view_key(view, period)}
        distractors = []
        for _ in range(3):
            for _ in range(MAX_TRIES):
                rule = rng.choice(VIEW_MISTAKES[style])
                wrong, detail = _wrong_view(rule, cube, rng)
                if not N.shows(cube, wrong, period) and N.view_key(wrong, period) not in seen:
                    seen.add(N.view_key(wrong, period))
                    distractors.append(N.option(rule, detail, view=wrong, orientation=detail["orientation"]))
                    break
            else:
                return None
        side = rng.randrange(6)
        asked, opposite = cube[side][0], cube[side ^ 1][0]
        what = "colour" if style == "colours" else "face"
        named = f"the colour {asked}" if style == "colours" else f"the face labelled {asked}"
        example = f"<the {what}'s {'name' if style == 'colours' else 'label'}>"  # a placeholder: no label hinted
        extra = {"oppositeQuestion": (f"The image shows a net, printed on the outside when folded. When it is folded "
                                      f"into a cube, which {what} is opposite {named}? End your reply with one line "
                                      f'of JSON of the form {{"opposite": "{example}"}}'),
                 "oppositeAnswer": {"opposite": opposite}}
        return key, distractors, extra

    # -- the family's own format, pictures, audit, splits ----------------------------------------

    def native(self, record: dict) -> list[dict]:
        """SpatialViz's JSON row (foldsim.families.spatialviz native_rows' fields)."""
        task = record["info"]["task"]
        explanation = {o["label"]: f"Option {o['label']} is incorrect because "
                                   f"{WORDS.get(o['error'], lambda d: o['error'])(o['errorDetail'] or {})}."
                       for o in record["options"] if o["error"] is not None}
        return [{"Category": "MentalFolding", "Task": "CubeReconstruction" if task == "view" else "CubeUnfolding",
                 "Level": "Level0" if record["level"] == "colours" else "Level1", "Image_id": record["id"],
                 "Question": record["question"], "Choices": [o["label"] for o in record["options"]],
                 "Answer": record["answer"], "Explanation": explanation}]

    def count_space(self, level, on_progress=None):
        """The level's space from net_space (`cube_space`): can / cannot show a view of the cube and
        four nets (ordered layouts, each in one of 24 poses); view shows a net and keys one of 24
        orientations, asking the face opposite one of 6."""
        from .cube_space import cube_choice_space, ordered

        name = self.level(level)
        nets = ordered(len(N.layouts()), 4) * 24 ** 4
        space = cube_choice_space(self.name, name, self.levels[name]["faces"], {
            "can": {"question": "view", "arrangements": nets}, "cannot": {"question": "view", "arrangements": nets},
            "view": {"question": "net", "arrangements": 24 * 6}})
        if on_progress is not None:
            on_progress(space["configurations"])
        return space


SPATIALVIZ_CUBE = SpatialVizCubeFamily()
