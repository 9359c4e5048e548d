"""`foldsim generate --family NAME`: which road writes a family's run. The sampled families
(spatialviz, visfactor, srbench) go through foldsim.dataset.family_runs; MentalBlackboard, whose
items come from the benchmark's own generator, through foldsim.dataset.mentalblackboard_family.
Both write the same item format. The record families (`RECORD_FAMILIES`: cube nets, fold and cut),
which key and draw their own records, go through foldsim.dataset.record_runs. Each returns
({items, native[, split], count, images}, the RenderReport)."""

from __future__ import annotations

from ..families.base import Family
from ..families.record_family import RecordFamily
from ..families.registry import GENERAL_FAMILIES
from . import mentalblackboard_family
from .family_runs import write_sampled_run
from .record_runs import write_record_run


def write_run(fam: Family | RecordFamily, out_dir, count: int, seed: int, level: str | None = None, *, console=None,
              media: bool = True, splits=(), workers: int = 1, backend: str = "local",
              address: str | None = None, first_id: int = 1):
    """Generate `count` items of `fam` and write them into `out_dir` (with their images when `media`)."""
    if isinstance(fam, RecordFamily):
        write = write_record_run
    else:
        write = write_sampled_run if fam.name in GENERAL_FAMILIES else mentalblackboard_family.write_run
    return write(fam, out_dir, count, seed, level, console=console, media=media, splits=splits, workers=workers,
                 backend=backend, address=address, first_id=first_id)


def write_family(fam: Family | RecordFamily, out_dir, count: int, seed: int, level: str | None = None, console=None,
                 media: bool = True, splits=(), **options) -> dict:
    """`write_run` without the render report object: the paths, the count, the images listed
    in the manifests, and the report's summary (rendered, skipped, failed[, fatal])."""
    written, report = write_run(fam, out_dir, count, seed, level, console=console, media=media, splits=splits,
                                **options)
    return {**written, **(report.summary() if media else {})}
