"""The item spaces of the cube-choice families (spatialviz-cube, pfp-cube), counted from
`foldsim.net_space` as the families draw them (docs/nets.md, "The whole space"; issue 25 item 2
through `foldsim enumerate --family`). Shared by those two families (not a family module).

A keyed cube is one of the 30 labelled cubes up to rotation; patterned faces also carry a turn each
(4^6 per labelling; coloured faces none). A net is a layout (one of the 11 cube nets) labelled for
the cube in one of its 24 poses, and a view is the cube in one of its 24 orientations. So the
level's configurations are nets x labellings (x pattern turns) x orientations: for coloured faces
the 11 x 30 x 24 = 7,920 of docs/nets.md. Each task's question and the key's arrangement of the
options are counted; distractors (drawn again until the engine shows them wrong) are not.
"""

from __future__ import annotations

from math import perm

from ..net_space import CUBE_SIDES, ORIENTATIONS, all_assignments, cube_labellings, cube_nets

#: the turns a patterned face is drawn with (net_options.random_cube); coloured faces are drawn upright
PATTERN_TURNS = 4


def cube_choice_space(family: str, level: str, faces: str, tasks: dict[str, dict]) -> dict:
    """The level's space (module docstring). `tasks`: task name -> {"question": "view" | "net",
    "arrangements": the number of ways the key's options are placed}, as the family draws them."""
    nets, labellings, assignments = len(cube_nets()), len(cube_labellings()), len(all_assignments())
    turns = PATTERN_TURNS ** CUBE_SIDES if faces == "patterns" else 1
    cubes = labellings * turns
    questions = {"view": cubes * ORIENTATIONS, "net": nets * cubes * ORIENTATIONS}
    by_task = {task: {"question": drawn["question"], "questions": questions[drawn["question"]],
                      "arrangements": drawn["arrangements"],
                      "items": questions[drawn["question"]] * drawn["arrangements"]}
               for task, drawn in tasks.items()}
    return {"family": family, "level": level, "faces": faces, "nets": nets, "labellings": labellings,
            "assignments": assignments, "orientations": ORIENTATIONS, "pattern_turns": turns, "cubes": cubes,
            "configurations": nets * cubes * ORIENTATIONS, "by_task": by_task,
            "items": sum(t["items"] for t in by_task.values()),
            "note": "configurations = nets x labelled cubes x orientations; items = questions x the key's option "
                    "arrangements per task, distractors not counted"}


def ordered(n: int, k: int) -> int:
    """Ordered draws of k different things of n (rng.sample's outcomes)."""
    return perm(n, k)
