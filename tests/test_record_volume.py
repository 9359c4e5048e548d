"""Volume for the record families (issue 27 items 3 and 9, issue 25 item 7): `generate --family`
cuts a run into blocks of BLOCK_ITEMS items (foldsim.dataset.record_runs), each its own random
stream, generated in this process, in spawned workers or on Ray, kept across an interrupt. What
these tests hold: the same bytes for any number of workers and either backend; every real
family's block is `generate(size, seed, level, first=...)` with ids and levels by the global
index; a SIGKILLed run restarted keeps its finished blocks and ends identical to an uninterrupted
run; a block of other arguments, or one whose records were altered, is never used."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from cli_invoke import invoke
from foldsim.cli.common import EXIT_OK
from foldsim.dataset import record_runs
from foldsim.dataset.media import listed
from foldsim.dataset.record_runs import BLOCK_ITEMS, BLOCKS_DIR, Block, generate_records, read_block, run_blocks
from foldsim.families.registry import RECORD_FAMILIES
from killed_run import sigkill_once_written
from record_family_stub import GENERATE_SECONDS_ENV, TOY, plugin_env, toy_family  # noqa: F401

#: three blocks: two whole, one of 5
COUNT = 2 * BLOCK_ITEMS + 5
ARGS = ["generate", "--family", "toy", "--count", str(COUNT), "--seed", "3", "--no-media"]


def files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def run(out: Path, *extra: str):
    result = invoke(*ARGS, "--out", out, *extra)
    assert result.exit_code == EXIT_OK, result.output
    return files(out)


def spy_pool(monkeypatch) -> list[list[int]]:
    """The first items of the blocks each worker pool was given, as the run goes."""
    pooled: list[list[int]] = []
    real = record_runs._in_pool

    def spy(blocks, out_dir, workers):
        pooled.append([block.first for block in blocks])
        return real(blocks, out_dir, workers)

    monkeypatch.setattr(record_runs, "_in_pool", spy)
    return pooled


@pytest.fixture
def reference(toy_family, tmp_path) -> dict[str, bytes]:
    """One uninterrupted run, in this process."""
    return run(tmp_path / "reference", "--workers", "1")


def blocks_of(fam, count: int, seed: int, level=None, size: int = BLOCK_ITEMS) -> list[dict]:
    """The records a run must hold: one `generate` call per block, each from its first item."""
    return [r for first in range(0, count, size) for r in fam.generate(min(size, count - first), seed, level, first=first)]


def unlisted(records: list[dict]) -> list[dict]:
    """As a run without media lists them (no image vouched for)."""
    return [listed(r, None) for r in records]


def test_a_run_is_its_blocks_and_two_workers_write_the_bytes_of_one(reference, tmp_path, monkeypatch):
    records = json.loads(reference["toy_items.json"])
    assert records == unlisted(blocks_of(TOY, COUNT, 3))  # three streams, not one: TOY.generate(COUNT, 3) differs
    assert records != unlisted(TOY.generate(COUNT, 3))
    assert [r["id"] for r in records] == [f"toy_{n:05d}" for n in range(1, COUNT + 1)]
    levels = list(TOY.levels)
    assert [r["level"] for r in records] == [levels[i % len(levels)] for i in range(COUNT)]
    assert not any(name.startswith(BLOCKS_DIR) for name in reference)  # a complete run leaves no blocks
    monkeypatch.setattr(record_runs, "POOL_START_S", 0.0)  # the toy is fast: make the workers pay
    pooled = spy_pool(monkeypatch)
    assert run(tmp_path / "two", "--workers", "2") == reference  # spawned workers, the plugin's family
    assert pooled == [[BLOCK_ITEMS, 2 * BLOCK_ITEMS]]  # the first block here, the other two on the workers


def test_workers_start_only_where_they_pay():
    """A fast family's run stays in this process (spawning costs seconds); PFP's blocks go out."""
    from foldsim.dataset.record_runs import POOL_START_S, worth_a_pool

    assert not worth_a_pool(0.15, 10, 2)  # stare, 640 more items: 0.75 s of work
    assert worth_a_pool(0.15, 1562, 2)  # stare, 100,000 items
    assert worth_a_pool(8.0, 2, 2)  # pfp, two more blocks of about 8 s
    assert not worth_a_pool(8.0, 2, 1) and not worth_a_pool(100.0, 1, 4)  # one worker, one block left
    assert not worth_a_pool(POOL_START_S, 2, 2) and worth_a_pool(POOL_START_S * 1.01, 2, 2)


@pytest.mark.parametrize("name", sorted(RECORD_FAMILIES))
def test_every_record_family_generates_its_items_from_any_first(name, tmp_path):
    """The real families honour `first`: ids and levels by the global index, and block by block in
    this process gives what one call per block gives (so any worker gives the same)."""
    fam = RECORD_FAMILIES[name]
    got = generate_records(fam, tmp_path, 7, 5, None, size=3)
    assert got == blocks_of(fam, 7, 5, size=3)
    assert [r["id"] for r in got] == [f"{name}_{n:05d}" for n in range(1, 8)]
    levels = list(fam.levels)
    assert [r["level"] for r in got] == [levels[i % len(levels)] for i in range(7)]
    ticks: list[int] = []
    assert fam.generate(3, 5, first=3, on_progress=ticks.append) == got[3:6]
    assert sum(ticks) == 3  # n more items per call (stare counted 1, 2, 3: a bar at 6 of 3)
    assert fam.generate(3, 5, first=3) != fam.generate(3, 5, first=0)  # each block its own stream
    assert generate_records(fam, tmp_path, 7, 5, None, size=3) == got  # read back from the kept blocks


def test_a_real_family_in_worker_processes(tmp_path, monkeypatch):
    """pfp-cube (fast) through spawned workers: the registry's family, the bytes of one worker."""
    monkeypatch.setattr(record_runs, "POOL_START_S", 0.0)
    count = 2 * BLOCK_ITEMS + 3  # the first block here, the other two on the workers
    args = ["generate", "--family", "pfp-cube", "--count", str(count), "--seed", "2", "--no-media"]
    one, two = tmp_path / "one", tmp_path / "two"
    assert invoke(*args, "--out", one, "--workers", "1").exit_code == EXIT_OK
    pooled = spy_pool(monkeypatch)
    assert invoke(*args, "--out", two, "--workers", "2").exit_code == EXIT_OK
    assert pooled == [[BLOCK_ITEMS, 2 * BLOCK_ITEMS]] and files(one) == files(two)
    assert len(json.loads((one / "pfp-cube_items.json").read_text())) == count


def test_ray_writes_the_bytes_of_one_local_worker(reference, tmp_path):
    import ray  # installed with foldsim[ray]: never skipped (7 s on the shared 2 cores: a Ray instance starts)

    with warnings.catch_warnings():  # JAX warns on any fork; Ray starts its processes by fork + exec
        warnings.filterwarnings("ignore", message=r"os\.fork\(\) was called", category=RuntimeWarning)
        ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    try:
        assert run(tmp_path / "ray", "--backend", "ray") == reference
    finally:
        ray.shutdown()


def test_a_run_killed_midway_keeps_its_finished_blocks(reference, tmp_path, monkeypatch):
    """A real process, each item slowed down, SIGKILLed once its first block is written: the rerun
    generates only the blocks that were not finished and ends byte-identical to an uninterrupted run."""
    out = tmp_path / "out"
    env = {**plugin_env(), GENERATE_SECONDS_ENV: "0.01"}
    sigkill_once_written([*ARGS, "--out", str(out), "--workers", "1"], out, f"{BLOCKS_DIR}/*/*.json", env)
    kept = sorted(p.name for p in (out / BLOCKS_DIR).glob("*/*.json"))
    assert 1 <= len(kept) < 3 and not (out / "toy_items.json").exists()
    firsts: list[int] = []
    real = TOY.generate

    def spy(count, seed, level=None, on_progress=None, first=0):
        firsts.append(first)
        return real(count, seed, level, on_progress, first)

    monkeypatch.setattr(TOY, "generate", spy)
    assert run(out, "--workers", "1") == reference
    assert sorted(firsts) == [int(b.first) for b in run_blocks("toy", COUNT, 3, None)
                              if b.path(out).name not in kept]


def test_blocks_of_other_arguments_or_altered_are_never_used(reference, tmp_path, monkeypatch):
    out = tmp_path / "out"
    [first, second, _] = run_blocks("toy", COUNT, 3, None)
    other = Block("toy", 4, None, 0, BLOCK_ITEMS, BLOCK_ITEMS)  # seed 4's first block
    generate_records(TOY, out, BLOCK_ITEMS, 4, None)
    assert read_block(out, other) is not None
    first.path(out).parent.mkdir(parents=True)
    other.path(out).replace(first.path(out))  # another run's block, where this run's first block goes
    generate_records(TOY, out, BLOCK_ITEMS, 3, None, size=BLOCK_ITEMS)  # writes this run's first block
    record_runs.write_block(out, second, TOY.generate(BLOCK_ITEMS, 3, first=BLOCK_ITEMS))
    data = json.loads(second.path(out).read_text())
    data["records"][0]["answer"] = "Z"  # altered after it was written: its hash no longer holds
    second.path(out).write_text(json.dumps(data))
    assert read_block(out, second) is None
    assert run(out, "--workers", "1") == reference
