"""Writing a record family's run (`foldsim generate --family NAME` for a name in
`foldsim.families.registry.RECORD_FAMILIES`: cube nets, fold and cut) and auditing its records
(`foldsim audit --family NAME`).

A record family generates whole keyed records itself (`RecordFamily.generate`) and draws them
(`RecordFamily.images`); the road around them is the sampled families' road: the records written
atomically as `<family>_items.json`, the family's own file (`native_file`), the images through the
media machinery (foldsim.dataset.media: the folder checked and locked before any work, per-item
manifests, resume, worker processes, Ray), the items file naming only images their manifest
vouches for, `--splits` keyed by `RecordFamily.split_key` (foldsim.dataset.splits).

Volume (PFP's exact geometry runs at 6-30 items/s a core): the records are generated in blocks of
BLOCK_ITEMS items, block b being `generate(size, seed, level, first=b * BLOCK_ITEMS)` (its own
random stream: record_family's "Volume"), in this process, in spawned worker processes
(`--workers`) or as Ray tasks (`--backend ray`), so the records are the same bytes whatever runs
them. A finished block is written atomically to `<out>/.foldsim-blocks/<run key>/`, with the
arguments it was made from and the SHA-256 of its records; a run interrupted and started again
with the same arguments keeps every block whose file still holds those arguments and that hash,
and generates the rest. The run key hashes the family, seed, level, block size and foldsim's
version, so blocks of other arguments are never read (and are removed, under the folder's lock,
when another run starts there). The folder goes once the run is complete (every image written,
or no media asked for)."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, replace
from multiprocessing import get_context
from pathlib import Path

from ..errors import InputError, debugging, describe, internal_error_text
from ..families.audit import INVALID, AuditItem, AuditReport, record_names
from ..families.record_family import RecordFamily
from ..io import atomic_write_text, record_name
from ..progress import counting_bar
from .family_runs import items_file_name, write_json_list, write_native_and_media
from .manifests import content_hash
from .media import BACKENDS, FATAL_ERRNOS, SAFE_ID, MediaRequest, listed, open_output
from .splits import add_splits

#: items per block: the unit of parallel work and of resume. The records a seed gives depend on it
#: (every block draws its own random stream), so it is a constant of foldsim, not an option.
BLOCK_ITEMS = 64
#: the hidden folder in --out that holds a run's finished blocks until the run is complete
BLOCKS_DIR = ".foldsim-blocks"
#: seconds a spawned generation worker takes before its first block (foldsim, JAX and the family
#: imported, its first shapes compiled): about 4 s measured on the shared 2-core machine
POOL_START_S = 5.0


@dataclass(frozen=True)
class Block:
    """One block of a record run: the items first .. first+count-1 of `family` (module docstring)."""

    family: str
    seed: int
    level: str | None
    first: int
    count: int
    size: int  # the run's block size (a block's stream depends on where blocks start)

    @property
    def name(self) -> str:
        return f"{self.family} items {self.first + 1}-{self.first + self.count}"

    def run_key(self) -> str:
        """What every block of one run shares, and nothing of another run does."""
        from .. import __version__

        return content_hash({"family": self.family, "seed": self.seed, "level": self.level, "size": self.size,
                             "version": __version__})[:16]

    def path(self, out_dir: Path) -> Path:
        return Path(out_dir) / BLOCKS_DIR / self.run_key() / f"{self.first:09d}-{self.count}.json"


def run_blocks(family: str, count: int, seed: int, level: str | None, size: int = BLOCK_ITEMS) -> list[Block]:
    return [Block(family, seed, level, first, min(size, count - first), size) for first in range(0, count, size)]


def block_records(fam: RecordFamily, block: Block, on_progress: Callable[[int], None] | None = None) -> list[dict]:
    return fam.generate(block.count, block.seed, block.level, on_progress=on_progress, first=block.first)


def write_block(out_dir: Path, block: Block, records: list) -> None:
    """The block's file: its arguments, its records and their hash (checked on resume)."""
    data = {"block": asdict(block), "sha256": content_hash(records), "records": records}
    atomic_write_text(block.path(out_dir), json.dumps(data, ensure_ascii=False) + "\n")


def read_block(out_dir: Path, block: Block) -> list[dict] | None:
    """The block's records when its file holds exactly this block's arguments and records whose hash
    is the one written with them; None otherwise (missing, damaged, another run's)."""
    try:
        data = json.loads(block.path(out_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (not isinstance(data, dict) or data.get("block") != asdict(block) or not isinstance(data.get("records"), list)
            or data.get("sha256") != content_hash(data["records"])):
        return None
    return data["records"]


def generate_block(block: Block, out_dir: str, request=None) -> dict:
    """A worker's job (a spawned process or a Ray task): generate one block and write its file;
    returns how many items it holds. The family is the one registered under the block's name."""
    from ..families.registry import RECORD_FAMILIES

    records = block_records(RECORD_FAMILIES[block.family], block)
    write_block(Path(out_dir), block, records)
    return {"count": len(records)}


def _in_pool(blocks: Sequence[Block], out_dir: str, workers: int) -> Iterator[tuple[str, dict | BaseException]]:
    """(name, result or error) per block, as spawned processes finish them (JAX does not survive
    fork); at most 2 x workers blocks in flight; closing it drops what has not started."""
    pending = iter(blocks)
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        running: dict = {}
        try:
            while True:
                while len(running) < 2 * workers and (block := next(pending, None)) is not None:
                    running[pool.submit(generate_block, block, out_dir)] = block.name
                if not running:
                    return
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    name = running.pop(future)
                    error = future.exception()
                    yield name, error if error is not None else future.result()
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def worth_a_pool(block_seconds: float, blocks_left: int, workers: int) -> bool:
    """Whether `workers` spawned processes would finish the blocks left sooner than this one:
    each costs POOL_START_S to start (importing foldsim and JAX, compiling its first shapes), so
    a fast family (the cube nets: hundreds of items/s) stays here and PFP's exact geometry goes
    out. Only the time changes: the records are the same bytes either way."""
    if workers <= 1 or blocks_left <= 1:
        return False
    return block_seconds * blocks_left * (1 - 1 / min(workers, blocks_left)) > POOL_START_S


def _block_here(fam: RecordFamily, out: Path, block: Block, advance: Callable[[int], None]) -> list[dict]:
    records = block_records(fam, block, advance)
    try:
        write_block(out, block, records)
    except OSError as error:
        raise _block_failed(error, out) from None
    return records


def _block_failed(error: BaseException, out: Path) -> InputError | BaseException:
    """What stops the run when a block fails: the output's own failure as one line naming --out,
    the family's InputError as it is, anything else (a bug) unchanged."""
    if isinstance(error, OSError) and error.errno in FATAL_ERRNOS:
        return InputError(f"cannot write into {out}: {error.strerror or error}", field="--out")
    return error


def generate_records(fam: RecordFamily, out: Path, count: int, seed: int, level: str | None, *, workers: int = 1,
                     backend: str = "local", address: str | None = None, console=None,
                     size: int = BLOCK_ITEMS) -> list[dict]:
    """The run's records, block by block (module docstring): the blocks a run with the same
    arguments left are kept, the others generated here, in worker processes or on Ray. Call it
    under the folder's lock."""
    if backend not in BACKENDS:
        raise InputError(f"unknown backend {backend!r} (expected {' or '.join(BACKENDS)})", field="--backend")
    blocks = run_blocks(fam.name, count, seed, level, size)
    root = out / BLOCKS_DIR
    if root.exists() and not root.is_dir():
        raise InputError("is a file, where foldsim keeps a run's finished blocks", item=str(root))
    keep = blocks[0].run_key() if blocks else None
    for other in (root.iterdir() if root.is_dir() else ()):
        if other.name != keep:  # another run's blocks (or a killed write's temp file): never read
            shutil.rmtree(other, ignore_errors=True) if other.is_dir() else other.unlink(missing_ok=True)
    done = {block: read_block(out, block) for block in blocks}
    todo = [block for block, records in done.items() if records is None]
    kept = count - sum(block.count for block in todo)
    label = f"generating {fam.name}" + (f" ({kept} kept)" if kept else "")
    bar, advance = counting_bar(label, "items", total=count - kept, console=console)
    with bar:
        if backend == "local":  # the first block here, timed: workers start only where they pay
            started = time.perf_counter()
            for index, block in enumerate(todo):
                done[block] = _block_here(fam, out, block, advance)
                rest = todo[index + 1:]
                if index == 0 and worth_a_pool(time.perf_counter() - started, len(rest), workers):
                    break
            todo = [block for block in todo if done[block] is None]
        if todo:
            if backend == "ray":
                from .backends import ray_jobs

                jobs = ray_jobs(generate_block, todo, str(out), None, workers=workers, address=address,
                                name=lambda block: block.name)
            else:
                jobs = _in_pool(todo, str(out), workers)
            try:
                for _, outcome in jobs:
                    if isinstance(outcome, BaseException):
                        raise _block_failed(outcome, out) from None
                    advance(outcome["count"])
            finally:
                jobs.close()
            for block in todo:  # written by the workers: read back through the same check as a resume
                done[block] = read_block(out, block)
                if done[block] is None:
                    raise InputError(f"{block.name}: its block file was not written or does not check",
                                     item=str(block.path(out)))
    return [record for block in blocks for record in done[block]]


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
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:  # blocks call the family only for items
        raise InputError(f"must be a whole number of at least 0, got {describe(count)}", field="--count")
    if level is not None:
        fam.level(level)
    out = Path(out_dir)
    items_path, native_path = out / items_file_name(fam), out / fam.native_file
    request = MediaRequest.of(family=media)
    with open_output(out, request, (items_path.name, native_path.name)) as folder:
        generated = generate_records(fam, out, count, seed, level, workers=workers, backend=backend,
                                     address=address, console=console)
        try:
            records = check_generated(fam, generated, count)
        except InputError:  # the family's bug, the same on every rerun: its blocks are no work to keep
            shutil.rmtree(out / BLOCKS_DIR, ignore_errors=True)
            raise
        if splits:  # leak-free: items equal under the family's symmetries (split_key) share a split
            add_splits(records, splits)
        native = [row for record in records for row in fam.native_rows(record)]

        def write_items(manifests: dict) -> None:
            """The items naming only the images the manifests vouch for."""
            write_json_list(items_path, [listed(r, manifests.get(r["id"])) for r in records], out)

        report = write_native_and_media(out, folder, records, write_items, native_path, fam.native_text(native),
                                        media=media, workers=workers, backend=backend, address=address,
                                        console=console, source=items_path.name)
        if not report.failed and not report.fatal:  # complete: a rerun has nothing left to keep
            shutil.rmtree(out / BLOCKS_DIR, ignore_errors=True)
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
    names = record_names(records)
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
