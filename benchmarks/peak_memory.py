"""Peak memory of `simulate_batch` (or `simulate_compact_batch`) on one batch, measured in this
(fresh) process.

    python -m benchmarks.peak_memory ACTIONS.npy [dense|compact]

prints one JSON line. CPU: the growth of the process's peak resident set over its size once the
inputs are loaded: the larger of VmHWM (/proc/self/status, read while the outputs are still alive)
and the resident set sampled every millisecond during the call (Linux folds per-thread page counts
into VmHWM lazily, so it alone can miss a short peak). The peak is reset between the first call
(compilation + run) and a steady-state call where Linux allows it (/proc/self/clear_refs). Run it
with glibc's mmap threshold fixed (benchmarks.simulate does) so freed buffers leave the resident
set instead of being reused unseen. GPU: the device's peak_bytes_in_use over its bytes_in_use
before the call.
"""

from __future__ import annotations

import gc
import json
import sys
import threading
import time

import jax
import numpy as np

from foldsim import kernels as K

from .harness import every_location

SAMPLE_SECONDS = 0.001
SETTLE_SECONDS, SETTLE_STEP, SETTLE_TOLERANCE = 3.0, 0.1, 1 << 20


def status_bytes(field: str, path: str = "/proc/self/status") -> int | None:
    """A `kB` field of /proc/self/status (VmRSS, VmHWM) in bytes, None where there is none."""
    try:
        with open(path, encoding="ascii") as handle:
            for line in handle:
                if line.startswith(f"{field}:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def reset_peak() -> bool:
    """Set VmHWM back to the current resident set (Linux: write 5 to clear_refs)."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


class ResidentSampler:
    """Samples the resident set in a background thread (the kernel releases the GIL) and keeps its
    maximum; use as a context manager."""

    def __init__(self, interval: float = SAMPLE_SECONDS):
        self.interval, self.peak = interval, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, status_bytes("VmRSS") or 0)
            self._stop.wait(self.interval)

    def __enter__(self) -> "ResidentSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def settle(limit: float = SETTLE_SECONDS) -> None:
    """Wait until the resident set stops shrinking: JAX frees dropped buffers asynchronously, and a
    measurement that starts while the last call's outputs are still being released reads low."""
    gc.collect()
    previous, waited = status_bytes("VmRSS") or 0, 0.0
    while waited < limit:
        time.sleep(SETTLE_STEP)
        waited += SETTLE_STEP
        current = status_bytes("VmRSS") or 0
        if current >= previous - SETTLE_TOLERANCE:
            return
        previous = current


def host_peak_growth(call) -> int | None:
    """Bytes the peak resident set grew by during `call()` (its outputs included)."""
    settle()
    reset_peak()
    before = status_bytes("VmRSS")
    with ResidentSampler() as sampler:
        out = jax.block_until_ready(call())
        high_water = status_bytes("VmHWM")
    del out
    if before is None or high_water is None:
        return None
    return max(high_water, sampler.peak) - before


KERNELS = {"dense": K.simulate_batch, "compact": K.simulate_compact_batch}


def measure(actions: np.ndarray, kernel: str = "dense") -> dict:
    device = jax.devices()[0]
    inputs = jax.block_until_ready([jax.device_put(x) for x in every_location(actions)])

    def call():
        return KERNELS[kernel](*inputs)

    if device.platform == "cpu":
        resettable = reset_peak()
        method = "peak RSS growth (VmHWM)" if resettable else "peak RSS growth (VmHWM, not resettable)"
        first = host_peak_growth(call)
        steady = host_peak_growth(call) if resettable else None
        return {"rows": len(actions), "method": method, "first_call_bytes": first, "steady_bytes": steady}
    in_use = device.memory_stats()["bytes_in_use"]
    jax.block_until_ready(call())
    peak = device.memory_stats()["peak_bytes_in_use"]
    return {"rows": len(actions), "method": f"{device.device_kind} peak_bytes_in_use",
            "first_call_bytes": peak - in_use, "steady_bytes": None}


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2) or (len(argv) == 2 and argv[1] not in KERNELS):
        print(f"usage: python -m benchmarks.peak_memory ACTIONS.npy [{'|'.join(KERNELS)}]", file=sys.stderr)
        return 2
    print(json.dumps(measure(np.load(argv[0]), *argv[1:])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
