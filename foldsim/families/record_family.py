"""The interface of a family whose items are not point holes on a rectangular sheet (cube nets:
stare, spatialviz-cube, pfp-cube; fold and cut: pfp). Such a family keys its items on its own
engine (foldsim.nets, foldsim.cutfold), so it does more than a `foldsim.families.base.Family`:
it generates whole keyed records, draws their images, audits anyone's keys and names the key
that keeps equal items in one split. `foldsim generate --family`, `audit --family`, the media
machinery, the splits and the evaluation road call these methods and nothing family-specific.

A record of such a family is a JSON object with at least (docs/families.md, "Record families"):

    id          "<family>_<00001>", unique in its file
    family      the family's name
    level       one of the family's level names
    taskType    "Choice" (options labelled A, B, ...) or "YesNo" (answer "yes" / "no")
    question    the question as the family words it (the images carry the rest)
    questionImg the main image's file name (relative to the items file); optional "stepsImgs"
                (a list: a net's fold-step pictures), "optionImgs" (one image per option)
    options     Choice: [{"label", "error" (None for the key, else the named mistake),
                "errorDetail", ...the option's exact content}]; YesNo: []
    answer      the key: a label, or "yes" / "no"
    info        every parameter needed to rebuild the item exactly
    native      the rows of the peer benchmark's own format for this item

and, where the family poses an open question, `<task>Question` with `<task>Answer` (an object of
named exact values: {"cutouts": 3}, {"opposite": "red"}), scored field by field by
`foldsim score <task>` (tasks "count" and "opposite").

Volume: `generate(count, seed, level, first=F)` gives the records of the items F, F+1, ... of a
run (ids from <family>_<F+1>, the levels cycled by that global index) from a random stream of its
own drawn from (seed, F) alone. So `foldsim.dataset.record_runs` cuts a run into fixed blocks,
generates them in any order on any number of workers or Ray nodes, keeps finished blocks across an
interrupt, and writes the same bytes for any of them.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from ..errors import InputError, describe
from ..limits import FAMILY_ITEM_BYTES


class RecordFamily:
    """A family that keys, draws and audits its own records (see the module docstring)."""

    name = ""
    summary = ""
    #: level name -> the level's parameters (JSON-ready), in the order `generate` cycles them
    levels: dict[str, dict] = {}
    n_options = 4
    task_type = "Choice"
    native_file = ""  # the family's own format file in the output folder
    #: the named mistakes its distractors simulate
    distractor_rules: tuple[str, ...] = ()
    #: the open tasks its records carry (`<task>Question` / `<task>Answer`)
    open_tasks: tuple[str, ...] = ()
    #: bytes one of its records holds until a run writes them all (the --count bound's unit)
    item_bytes = FAMILY_ITEM_BYTES

    def level(self, name: str | None) -> str:
        """The level's name (the first when None); InputError naming --level for an unknown one."""
        if name is None:
            return next(iter(self.levels))
        if name not in self.levels:
            raise InputError(f"must be one of {', '.join(self.levels)} for {self.name}, got {describe(name)}",
                             field="--level")
        return name

    def rules(self) -> dict:
        return {"family": self.name, "summary": self.summary, "levels": self.levels, "options": self.n_options,
                "task_type": self.task_type, "distractor_rules": list(self.distractor_rules),
                "open_tasks": list(self.open_tasks)}

    # -- to be provided -------------------------------------------------------------------------

    def generate(self, count: int, seed: int, level: str | None = None,
                 on_progress: Callable[[int], None] | None = None, first: int = 0) -> list[dict]:  # pragma: no cover - abstract
        """`count` keyed records of the items `first`, `first`+1, ... (ids <family>_<first+1> ...),
        from a random stream seeded by (seed, first) alone (module docstring, "Volume"). Level: the
        one named, else the levels in turn by the item's global index. Same arguments, same
        records, byte for byte. A bad candidate is dropped, never raised. `on_progress(n)`: n more
        items done."""
        raise NotImplementedError

    def images(self, record: dict) -> dict[str, bytes]:  # pragma: no cover - abstract
        """file name -> PNG bytes of every image the record names; InputError naming the item and
        field when the record cannot be drawn."""
        raise NotImplementedError

    def audit(self, records: list, file: str):  # pragma: no cover - abstract
        """A `foldsim.families.audit.AuditReport`: per record, whether its key is the physical answer,
        every option distinct from the key and from one another, and each distractor verified wrong;
        a record that cannot be read is that record's `invalid` verdict, never an exception."""
        raise NotImplementedError

    def split_key(self, record: dict) -> str:  # pragma: no cover - abstract
        """A string equal for items that are the same up to the family's symmetries (a net's
        rotations and reflections with its labelling carried along, a sheet's symmetries), so
        that `--splits` never puts one item in two splits."""
        raise NotImplementedError

    def count_space(self, level: str, on_progress: Callable[[int], None] | None = None) -> dict:
        """The exact size of the level's item space, for `foldsim enumerate --family`: a JSON-ready
        dict with at least "family", "level" and "configurations" (optionally "items" and "note"),
        plus the family's own named counts. Optional: a family whose space is not finite or not
        counted leaves it unimplemented and enumerate says so in one line. Bounded before work;
        `on_progress(n)` reports n more units done."""
        raise NotImplementedError

    def native_rows(self, record: dict) -> list[dict]:
        return list(record.get("native") or [])

    def native_text(self, rows: list[dict]) -> str:
        """The family's own file: a JSON list by default (a family with JSON Lines overrides this)."""
        return json.dumps(rows, indent=1, ensure_ascii=False) + "\n"
