"""What every benchmark family shares: timing (first call vs steady state), the machine, the inputs
(the physical configuration space, the planning file), progress bars and the results file."""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import jax
import numpy as np

from foldsim import kernels as K
from foldsim.enumerate import ActionTable, enumerate_space, pad_actions
from foldsim.mentalblackboard_sheet import SHEET
from foldsim.io import atomic_write_json, read_records
from foldsim.progress import progress_bar
from foldsim.rules import PHYSICAL

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data" / "mentalblackboard"
PLANNING_FILE = SHARED_DATA / "PFHP_Planning_Data.json"
RESULTS_SCHEMA = 1
MIN_STEADY_SECONDS = 0.5
MAX_STEADY_RUNS = 50
N_LOCATIONS = SHEET.n_triangles  # punch every grid position: every layer makes a result hole


@dataclass(frozen=True)
class Options:
    """Sizes of one benchmark run; `quick` shrinks everything for a smoke test."""

    quick: bool = False
    seed: int = 0

    @property
    def repeats(self) -> int:
        """Steady-state calls timed per measurement (the median is reported)."""
        return 2 if self.quick else 3

    @property
    def baseline_sample(self) -> int:
        """Items the plain per-item loop is timed on (its rate is extrapolated to the batch)."""
        return 20 if self.quick else 300


# -- timing ----------------------------------------------------------------------------------------


def wall(fn: Callable[[], object]) -> tuple[float, object]:
    """(seconds, value) of one call, waiting for JAX's asynchronous results."""
    start = time.perf_counter()
    value = jax.block_until_ready(fn())
    return time.perf_counter() - start, value


def first_and_steady(fn: Callable[[], object], repeats: int, *,
                     min_seconds: float = MIN_STEADY_SECONDS) -> tuple[dict, object]:
    """Time the first call (tracing + compilation + run), then steady-state calls: at least
    `repeats`, and more (up to MAX_STEADY_RUNS) until `min_seconds` have been spent, so fast calls
    get a stable median on a noisy machine.

    compile_s = first - steady (median): what compilation added to the first call.
    """
    first, value = wall(fn)
    steady: list[float] = []
    while len(steady) < repeats or (sum(steady) < min_seconds and len(steady) < MAX_STEADY_RUNS):
        value = None  # release the last result first, so each call runs with the same memory free
        seconds, value = wall(fn)
        steady.append(seconds)
    median = statistics.median(steady)
    return {"first_s": first, "steady_s": median, "best_s": min(steady), "compile_s": max(first - median, 0.0),
            "steady_runs": len(steady)}, value


def rate(count: float, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def timed_loop(items: list, fn: Callable[[object], object], description: str) -> tuple[float, list]:
    """Seconds and results of the plain per-item loop `[fn(x) for x in items]`, with a progress bar
    (the bar is updated outside the timed calls)."""
    seconds, results = 0.0, []
    with progress_bar() as bar:
        task = bar.add_task(description, total=len(items))
        for item in items:
            start = time.perf_counter()
            results.append(fn(item))
            seconds += time.perf_counter() - start
            bar.advance(task)
    return seconds, results


# -- the machine ------------------------------------------------------------------------------------


def cpu_model(path: str = "/proc/cpuinfo") -> str:
    """The CPU's model name ("unknown" where /proc/cpuinfo has none)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def machine() -> dict:
    """Where and when the figures were taken."""
    device = jax.devices()[0]
    return {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "cpu": cpu_model(),
        "cores": usable_cores(),
        "jax_backend": jax.default_backend(),
        "device": device.device_kind,
        "device_count": jax.device_count(),
        "jax": jax.__version__,
        "python": platform.python_version(),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


def device_key(info: dict) -> str:
    """The results-file key of a machine: figures of one device replace only that device's."""
    if info["jax_backend"] == "cpu":
        return f"cpu: {info['cpu']} ({info['cores']} cores)"
    return f"{info['jax_backend']}: {info['device']}"


# -- the results file -------------------------------------------------------------------------------


def load_results(path: Path) -> dict:
    """The results file, or an empty one when it is missing or unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"schema": RESULTS_SCHEMA, "devices": {}}
    if not isinstance(data, dict) or not isinstance(data.get("devices"), dict):
        return {"schema": RESULTS_SCHEMA, "devices": {}}
    return data


def merge_results(previous: dict, key: str, info: dict, families: dict, *, replace_entry: bool) -> dict:
    """`previous` with this device's entry updated: other devices are kept as they are; this device's
    entry is replaced (a full run) or gets the families just run (a `--only` run)."""
    devices = dict(previous.get("devices", {}))
    kept = {} if replace_entry else dict(devices.get(key, {}).get("families", {}))
    devices[key] = {"machine": info, "families": {**kept, **families}}
    return {"schema": RESULTS_SCHEMA, "devices": devices}


def write_results(path: Path, key: str, info: dict, families: dict, *, replace_entry: bool) -> dict:
    merged = merge_results(load_results(path), key, info, families, replace_entry=replace_entry)
    atomic_write_json(path, merged)
    return merged


# -- shared inputs ----------------------------------------------------------------------------------


@dataclass
class Context:
    """Inputs built once per run and shared by the families, plus the options and memos of kernel
    and reference timings keyed by (rows, actions) (a batch measured by one family is reused by the
    next, so its shape is not compiled again)."""

    options: Options
    kernel_timings: dict = field(default_factory=dict)
    reference_timings: dict = field(default_factory=dict)

    @cached_property
    def rng(self) -> np.random.Generator:
        return np.random.default_rng(self.options.seed)

    @cached_property
    def physical(self) -> ActionTable:
        """The whole physical configuration space (71,776 rows), enumerated once."""
        return enumerate_space(PHYSICAL)

    @cached_property
    def planning_records(self) -> list:
        return read_records(PLANNING_FILE)

    def sample_rows(self, n: int, *, n_actions: int | None = None) -> np.ndarray:
        """Action rows of n physical configurations (all of them, in order, when n is the whole
        space; else a seeded sample, with replacement only when there are fewer rows than n)."""
        actions = pad_actions(self.physical.actions)
        if n_actions is not None:
            actions = actions[(actions != K.actions.NOOP).sum(1) == n_actions][:, :n_actions]
        if n == len(actions):
            return actions
        rng = np.random.default_rng([self.options.seed, n, n_actions or 0])
        return actions[rng.choice(len(actions), n, replace=n > len(actions))]


def every_location(actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Kernel inputs that punch every grid position of every row (direction 0): all result holes."""
    n = len(actions)
    locations = np.tile(np.arange(N_LOCATIONS, dtype=np.int32), (n, 1))
    return actions, locations, np.zeros_like(locations)


def time_kernel(ctx: Context, actions: np.ndarray) -> tuple[dict, K.Punched]:
    """First-call and steady-state seconds of `simulate_batch` punching every location of `actions`
    (device-resident inputs, so only the kernel is timed), and its last output."""
    inputs = [jax.device_put(x) for x in every_location(actions)]
    timing, out = first_and_steady(lambda: K.simulate_batch(*inputs), ctx.options.repeats)
    rows, holes = len(actions), int(out.hits.sum())
    return {"rows": rows, "actions": int(actions.shape[1]), "holes": holes, **timing,
            "configs_per_s": rate(rows, timing["steady_s"]), "holes_per_s": rate(holes, timing["steady_s"])}, out


def measure_kernel(ctx: Context, key: tuple, actions: np.ndarray) -> dict:
    """`time_kernel`'s figures, memoized per key (the rows a key names must always be the same)."""
    if key not in ctx.kernel_timings:
        ctx.kernel_timings[key], _ = time_kernel(ctx, actions)
    return ctx.kernel_timings[key]


def fmt_seconds(seconds: float) -> str:
    """Seconds in a readable unit."""
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} us"


def fmt_rate(value: float) -> str:
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "K")):
        if value >= limit:
            return f"{value / limit:.2f}{suffix}"
    return f"{value:.1f}"


def fmt_bytes(n: float) -> str:
    for limit, suffix in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if n >= limit:
            return f"{n / limit:.1f} {suffix}"
    return f"{n:.0f} B"
