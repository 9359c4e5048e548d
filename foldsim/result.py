"""The simulator's answer for one item, `Result`, and its statuses: what both roads return (the
32-triangle kernel through foldsim.simulate, the general engine through foldsim.engine), so
neither has to import the other for it."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import kernels as K
from .config import Config
from .holes import Hole

STATUS_OK = "ok"
STATUS_NOT_REALIZABLE = "not_realizable"
STATUS_OFF_PAPER = "off_paper"
STATUS_INVALID = "invalid"


@dataclass(frozen=True)
class Result:
    """The simulator's answer for one item.

    status: "ok", "not_realizable" (a fold the paper cannot make), "off_paper" (a punch meets no
    layer) or "invalid" (bad input); `reason` says why in one line. `holes` is the result-hole
    multiset, `unfolding` the unfolding codes, `layers` the folded state: grid id -> number of
    layers there (grid ids without paper are absent). For a general item (`foldsim.sheets`) the
    holes are exact `PointHole`s, `layers_under` counts the layers under each punch, and
    `unfolding`/`layers` are empty.
    """

    id: str | None
    status: str
    reason: str = ""
    holes: tuple[Hole, ...] = ()
    unfolding: tuple[str, ...] = ()
    layers: dict[int, int] = field(default_factory=dict)
    failed_step: int | None = None  # 1-based action (or hole) index named by the reason
    failed_triangle: int | None = None  # grid id of a triangle the crease cuts
    layers_under: tuple[int, ...] = ()  # general items: distinct layers under each punch
    config: Config | None = field(default=None, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.status == STATUS_OK

    def to_json(self) -> dict:
        """The answer as one JSON object: id, status, reason (when not ok) and the result fields —
        the benchmark's for a MentalBlackboard item, exact point holes for a general item."""
        data: dict = {"id": self.id, "status": self.status}
        if self.reason:
            data["reason"] = self.reason
        if not self.ok:
            return data
        if self.holes and not isinstance(self.holes[0], Hole) or self.layers_under:
            return {**data, "holes": [h.to_dict() for h in self.holes], "totalNumberofHoles": len(self.holes),
                    "layers_under": list(self.layers_under)}
        return {**data, **self.to_record(with_extensions=True)}

    def to_record(self, *, with_extensions: bool = False) -> dict:
        """The benchmark's result fields: resultHoles, totalNumberofHoles, unfoldingTypes."""
        return {
            "resultHoles": [h.to_dict(with_extensions=with_extensions) for h in self.holes],
            "totalNumberofHoles": len(self.holes),
            "unfoldingTypes": list(self.unfolding),
        }


def not_realizable_text(code: int, triangle: int) -> str:
    """Why a fold cannot be made, for a kernel status code (either engine's)."""
    if code == K.CREASE_CUTS_TRIANGLE:
        return f"its crease cuts triangle {triangle + 1}"
    if code == K.OBLIQUE_CREASE:
        return "the diagonal of the folded shape's box is not at 45 degrees"
    return "one side of its crease holds no paper"
