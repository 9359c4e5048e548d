"""Writing a record family's run (`foldsim generate --family NAME` for a name in
`foldsim.families.registry.RECORD_FAMILIES`: cube nets, fold and cut) and auditing its records
(`foldsim audit --family NAME`).

A record family generates whole keyed records itself (`RecordFamily.generate`) and draws them
(`RecordFamily.images`); the road around them is the sampled families' road: the records written
atomically as `<family>_items.json`, the family's own file (`native_file`), the images through the
media machinery (foldsim.dataset.media: the folder checked and locked before any work, per-item
manifests, resume, worker processes, Ray), the items file naming only images their manifest
vouches for, `--splits` keyed by `RecordFamily.split_key` (foldsim.dataset.splits)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..errors import InputError, debugging, describe, internal_error_text
from ..families.audit import INVALID, AuditItem, AuditReport
from ..families.record_family import RecordFamily
from ..io import atomic_write_text, record_name
from ..progress import counting_bar
from .family_runs import items_file_name, write_json_list
from .media import SAFE_ID, MediaRequest, RenderReport, listed, open_output
from .splits import add_splits


def check_generated(fam: RecordFamily, records: object, count: int) -> list[dict]:
    """The family's records, checked for what the road builds on (its ids name files, its family
    and level pick the images and the groups); a family that breaks this is refused with one line
    before anything is written."""
    if not isinstance(records, list) or len(records) > count:
        raise InputError(f"{fam.name} generated {describe(records)}, not a list of at most {count} records",
                         field="--family")
    seen: set[str] = set()
    for index, record in enumerate(records):
        item = record_name(record, index)
        if not isinstance(record, dict):
            raise InputError(f"{fam.name} generated {describe(record)}, not a record", item=item)
        item_id = record.get("id")
        if not isinstance(item_id, str) or not SAFE_ID.fullmatch(item_id) or item_id in seen:
            raise InputError(f"{fam.name} generated the id {describe(item_id)}: ids must be unique file-name-safe "
                             "strings", item=item, field="id")
        seen.add(item_id)
        level = record.get("level")
        if record.get("family") != fam.name or not isinstance(level, str) or level not in fam.levels:
            raise InputError(f"{fam.name} generated a record of family {describe(record.get('family'))}, level "
                             f"{describe(record.get('level'))}", item=item, field="family")
    return records


def write_record_run(fam: RecordFamily, out_dir, count: int, seed: int, level: str | None = None, *, console=None,
                     media: bool = True, splits=(), workers: int = 1, backend: str = "local",
                     address: str | None = None, first_id: int = 1):
    """`generate --family NAME` of a record family (see the module docstring). Returns
    ({items, native, count, images}, the RenderReport), as `family_runs.write_sampled_run` does.
    `fam` must be the one registered under its name: the media workers and the splits find it there."""
    if first_id != 1:
        raise InputError(f"is not used with --family {fam.name} (ids are {fam.name}_<n>)", field="--first-id")
    if level is not None:
        fam.level(level)
    out = Path(out_dir)
    items_path, native_path = out / items_file_name(fam), out / fam.native_file
    request = MediaRequest.of(family=media)
    with open_output(out, request, (items_path.name, native_path.name)) as folder:
        bar, advance = counting_bar(f"generating {fam.name}", "items", total=count, console=console)
        with bar:
            records = check_generated(fam, fam.generate(count, seed, level, on_progress=advance), count)
        if splits:  # leak-free: items equal under the family's symmetries (split_key) share a split
            add_splits(records, splits)
        native = [row for record in records for row in fam.native_rows(record)]

        def write_items(manifests: dict) -> None:
            """The items naming only the images the manifests vouch for."""
            write_json_list(items_path, [listed(r, manifests.get(r["id"])) for r in records], out)

        write_items({})  # before drawing: no image is vouched for yet
        try:
            atomic_write_text(native_path, fam.native_text(native))
        except OSError as err:
            raise InputError(f"cannot write into {out}: {err.strerror or err}", field="--out") from None
        report = RenderReport(removed_temps=folder.removed_temps)
        if media:
            report = folder.render(records, workers=workers, backend=backend, address=address, console=console,
                                   source=items_path.name, sheet=False)
            write_items(folder.manifests)
    images = sum(len(m.files(["family"])) for m in folder.manifests.values()) if media else 0
    return {"items": str(items_path), "native": str(native_path), "count": len(records), "images": images}, report


def _verdicts(fam: RecordFamily, records: list, file: str) -> list[AuditItem]:
    """`fam.audit`'s verdicts, one per record (a RuntimeError when the family gives another number)."""
    judged = list(fam.audit(records, file).items)
    if len(judged) != len(records):
        raise RuntimeError(f"{fam.name}'s audit gave {len(judged)} verdicts for {len(records)} records")
    return judged


def _renamed(reason: str, old: str, new: str) -> str:
    return new + reason[len(old):] if reason.startswith(f"{old}:") else reason


def named_record_family(records: list) -> RecordFamily | None:
    """The record family that every record naming a family names (`audit` without --family), or
    None (no record names one, or they name several, or a point-hole family)."""
    from ..families.registry import RECORD_FAMILIES

    named = [r["family"] for r in records if isinstance(r, dict) and "family" in r]
    if not named or not all(isinstance(name, str) and name == named[0] for name in named):
        return None
    return RECORD_FAMILIES.get(named[0])


def audit_record_family(fam: RecordFamily, records: list, file: str) -> AuditReport:
    """`fam.audit` over the records of a file, one verdict per record in order; a record that is no
    object or is of another family is `invalid` whatever the family says (as
    `foldsim.families.audit` words it). The family sees every record, so it names them by their
    place in the file. Where the family raises or gives the wrong number of verdicts (its bug), it
    judges each record alone, and a record it still fails on gets one internal-error verdict (one
    line; FOLDSIM_DEBUG=1 raises)."""
    from ..simulate import record_positions

    positions = record_positions(records, len(records))
    names = [r["id"] if isinstance(r, dict) and isinstance(r.get("id"), str) and r["id"] else positions[i]
             for i, r in enumerate(records)]
    refused: dict[int, AuditItem] = {}
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            problem = InputError(f"must be an object, got {describe(record)}", item=names[index])
        elif record.get("family") not in (None, fam.name):
            other = record["family"]
            theirs = other if isinstance(other, str) else describe(other)
            problem = InputError(f"is a record of {theirs}, not of {fam.name} (audit --family "
                                 f"{other if isinstance(other, str) else 'NAME'})", item=names[index], field="family")
        else:
            continue
        refused[index] = AuditItem(names[index], INVALID, str(problem))
    try:
        judged = _verdicts(fam, records, file)
    except Exception:  # noqa: BLE001  (the family's bug: record by record, so it costs only the records it hits)
        if debugging():
            raise
        judged = []
        for index, name in enumerate(names):
            try:
                [verdict] = _verdicts(fam, [records[index]], file)
                if verdict.id != name:  # an id-less record, named by its place in a list of one
                    verdict = replace(verdict, id=name, reason=_renamed(verdict.reason, verdict.id, name))
            except Exception as err:  # noqa: BLE001
                verdict = AuditItem(name, INVALID, f"{name}: {internal_error_text(err)}")
            judged.append(verdict)
    report = AuditReport(file)
    report.items = [refused.get(index, verdict) for index, verdict in enumerate(judged)]
    return report
