"""The families by name: `FAMILIES` (name -> Family, in the order the CLI lists them) and `family(name)`,
the one lookup that refuses an unknown name. The only module that imports every family (each family
module imports `foldsim.families.base` alone, so the families stay independent of one another)."""

from __future__ import annotations

from ..errors import InputError, describe
from .base import Family
from .record_family import RecordFamily
from .mentalblackboard import MentalBlackboardFamily
from .pfp import PFP
from .pfp_cube import PFP_CUBE
from .spatialviz import SPATIALVIZ
from .spatialviz_cube import SPATIALVIZ_CUBE
from .srbench import SRBENCH
from .stare import STARE
from .visfactor import VISFACTOR
from .visworld import VISWORLD

FAMILIES: dict[str, Family] = {f.name: f for f in (SPATIALVIZ, VISFACTOR, SRBENCH, MentalBlackboardFamily())}
#: the families whose items `generate_family` samples; MentalBlackboard's come from its own
#: generator (foldsim.dataset.generate), through foldsim.dataset.mentalblackboard_family, into the
#: same item format
GENERAL_FAMILIES = ("spatialviz", "visfactor", "srbench")
#: the families that key, draw and audit their own records (foldsim.families.record_family):
#: fold and cut on polygon sheets, then the cube nets
RECORD_FAMILIES: dict[str, RecordFamily] = {f.name: f for f in (PFP, VISWORLD, STARE, SPATIALVIZ_CUBE, PFP_CUBE)}


def family(name: str) -> Family | RecordFamily:
    if name in RECORD_FAMILIES:
        return RECORD_FAMILIES[name]
    if name not in FAMILIES:
        names = ", ".join([*FAMILIES, *RECORD_FAMILIES])
        raise InputError(f"must be one of {names}, got {describe(name)}", field="--family")
    return FAMILIES[name]
