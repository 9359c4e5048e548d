"""Chunked batching: memory-derived chunk sizes, budget parsing, and chunked == unchunked."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from foldsim import kernels as K
from foldsim.batching import (
    DEFAULT_CHUNK_ROWS,
    MAX_CHUNK_ROWS,
    MEMORY_BUDGET_ENV,
    MIN_CHUNK_ROWS,
    SAFETY_FACTOR,
    bucket_rows,
    chunk_plan,
    chunk_rows_for,
    floor_ladder_size,
    ladder_size,
    meminfo_available,
    memory_budget_bytes,
    parse_memory_budget,
    row_bytes,
    run_chunked,
)
from foldsim.errors import InputError

N_ROWS = 3000
WIDTH = 6


def on_ladder(n: int) -> bool:
    return n in {ladder_size(k) for k in range(30)}


@pytest.fixture(scope="module")
def actions() -> np.ndarray:
    """A few thousand random action rows (folds, rotations, no-ops; many not realizable)."""
    rng = np.random.default_rng(5)
    return rng.integers(0, K.actions.N_ACTION_CODES, size=(N_ROWS, WIDTH), dtype=np.int32)


@pytest.fixture(scope="module")
def unchunked(actions) -> K.Folded:
    return jax.device_get(K.fold_batch(actions))


@pytest.fixture(scope="module")
def fold_row_bytes(actions) -> int:
    return row_bytes(K.fold_batch, [actions])


def budget_for(rows: int, fold_row_bytes: int) -> int:
    """A budget that makes chunk_rows_for pick exactly `rows` (a ladder size) for fold_batch."""
    return rows * fold_row_bytes * SAFETY_FACTOR + fold_row_bytes


def assert_same_tree(got, want) -> None:
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


# -- budgets ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("4096", 4096), ("64M", 64 << 20), ("1G", 1 << 30), ("1g", 1 << 30), ("512K", 512 << 10),
    ("64MB", 64 << 20), ("512KiB", 512 << 10), (" 2T ", 2 << 40), ("1.5G", 3 << 29), (1234, 1234),
])
def test_budget_parsing(text, expected):
    assert parse_memory_budget(text) == expected


@pytest.mark.parametrize("text", ["", "abc", "-1", "0", "0M", "12Q", "64 M B x", "1e9", True])
def test_bad_budgets_are_one_line_errors_naming_the_field(text):
    with pytest.raises(InputError) as err:
        parse_memory_budget(text)
    message = str(err.value)
    assert message.startswith(f"{MEMORY_BUDGET_ENV}: ") and "\n" not in message


def test_budget_precedence_argument_then_environment_then_available():
    assert memory_budget_bytes("2M", environ={MEMORY_BUDGET_ENV: "1G"}) == 2 << 20
    assert memory_budget_bytes(None, environ={MEMORY_BUDGET_ENV: "64M"}) == 64 << 20
    derived = memory_budget_bytes(None, environ={})
    assert 0 < derived < 1 << 50
    with pytest.raises(InputError, match=f"^{MEMORY_BUDGET_ENV}: 'lots'"):
        memory_budget_bytes(None, environ={MEMORY_BUDGET_ENV: "lots"})
    with pytest.raises(InputError, match="^memory_budget: "):
        memory_budget_bytes("-3", environ={})


def test_meminfo_is_read_in_bytes(tmp_path):
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       24684096 kB\nMemFree:        1000 kB\nMemAvailable:   2048 kB\n")
    assert meminfo_available(str(meminfo)) == 2048 * 1024
    assert meminfo_available(str(tmp_path / "missing")) is None
    (tmp_path / "other").write_text("MemTotal: 5 kB\n")
    assert meminfo_available(str(tmp_path / "other")) is None


# -- chunk sizes ------------------------------------------------------------------------------------


def test_row_bytes_counts_inputs_and_outputs(actions, fold_row_bytes):
    out = jax.eval_shape(K.fold_batch, jax.ShapeDtypeStruct((1, WIDTH), np.int32))
    out_bytes = sum(x.size * x.dtype.itemsize for x in jax.tree.leaves(out))
    assert fold_row_bytes == WIDTH * 4 + out_bytes


def test_chunk_size_follows_the_budget(actions, fold_row_bytes):
    sizes = [chunk_rows_for(K.fold_batch, [actions], memory_budget=budget_for(rows, fold_row_bytes), environ={})
             for rows in (64, 256, 1088)]
    assert sizes == [64, 256, 1088]
    assert chunk_rows_for(K.fold_batch, [actions], memory_budget=1, environ={}) == MIN_CHUNK_ROWS
    assert chunk_rows_for(K.fold_batch, [actions], memory_budget="1T", environ={}) == MAX_CHUNK_ROWS
    assert chunk_rows_for(K.fold_batch, [actions], memory_budget=budget_for(300, fold_row_bytes) , environ={}) == 256
    via_env = chunk_rows_for(K.fold_batch, [actions], environ={MEMORY_BUDGET_ENV: str(budget_for(128, fold_row_bytes))})
    assert via_env == 128
    assert on_ladder(chunk_rows_for(K.fold_batch, [actions], environ={}))


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 1000, 4096, 4097, 70_000])
@pytest.mark.parametrize("chunk_rows", [8, 512, DEFAULT_CHUNK_ROWS, 1000])
def test_chunk_plan_covers_every_row_once_in_ladder_buckets(n, chunk_rows):
    plan = chunk_plan(n, chunk_rows)
    covered = np.concatenate([np.arange(c.start, c.start + c.rows) for c in plan])
    np.testing.assert_array_equal(covered, np.arange(n))
    assert all(on_ladder(c.bucket) and c.rows <= c.bucket for c in plan)
    assert all(c.rows == chunk_rows for c in plan[:-1])
    assert len({c.bucket for c in plan}) <= 2  # full chunks and the last one: at most two compilations


def test_bucket_and_floor_ladder_sizes():
    assert [bucket_rows(n) for n in (0, 1, 8, 9, 100, 1000, 1100, 1 << 20)] == [8, 8, 8, 16, 128, 1088, 2112, DEFAULT_CHUNK_ROWS]
    assert [floor_ladder_size(n) for n in (0, 1, 2, 3, 1023, 1087, 1088, 2111)] == [1, 1, 2, 2, 512, 512, 1088, 1088]
    assert DEFAULT_CHUNK_ROWS == (1 << 14) + 64 and MAX_CHUNK_ROWS == (1 << 16) + 64


# -- chunked runs -----------------------------------------------------------------------------------


def test_small_budget_splits_into_chunks_with_the_unchunked_result(actions, unchunked, fold_row_bytes):
    chunks = []
    got = run_chunked(K.fold_batch, [actions], [K.actions.NOOP], memory_budget=budget_for(512, fold_row_bytes),
                      on_chunk=chunks.append)
    assert chunks == [512] * (N_ROWS // 512) + [N_ROWS % 512]
    assert_same_tree(got, unchunked)
    assert (got.status.code != K.OK).any() and (got.status.code == K.OK).any()  # both kinds of rows


def test_environment_budget_drives_the_default_chunking(actions, unchunked, fold_row_bytes, monkeypatch):
    monkeypatch.setenv(MEMORY_BUDGET_ENV, str(budget_for(512, fold_row_bytes)))
    chunks = []
    got = run_chunked(K.fold_batch, [actions[:1100]], [K.actions.NOOP], on_chunk=chunks.append)
    assert chunks == [512, 512, 76]
    assert_same_tree(got, jax.tree.map(lambda x: x[:1100], unchunked))


def test_fixed_chunk_rows_still_work(actions, unchunked):
    chunks = []
    got = run_chunked(K.fold_batch, [actions[:1024]], [K.actions.NOOP], chunk_rows=512, on_chunk=chunks.append)
    assert chunks == [512, 512]
    assert_same_tree(got, jax.tree.map(lambda x: x[:1024], unchunked))


def test_enumerate_and_verify_under_a_small_forced_memory_budget(monkeypatch, planning_file):
    """With a 4 MB budget the whole physical space and the planning replay run in many small chunks
    and give exactly the same figures (issue 5: never out of memory on large inputs)."""
    from foldsim.eval.answers import load_answers
    from foldsim.enumerate import enumeration_report
    from foldsim.eval.verify import replay_plans
    from foldsim.planning import read_tasks

    monkeypatch.setenv("FOLDSIM_MEMORY_BUDGET", "4M")
    chunks = []
    report = enumeration_report("physical", on_progress=chunks.append)
    assert len(report.table.actions) == 71_776
    assert len(chunks) > 20 and max(chunks) <= 1024
    chunks.clear()
    verdicts = replay_plans(read_tasks(planning_file), load_answers(planning_file), on_progress=chunks.append,
                            engine="kernel")  # the kernel path (the default looks 1..4-fold plans up in a table)
    assert sum(v.correct for v in verdicts) == 359
    assert len(chunks) > 1
