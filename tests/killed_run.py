"""A real `foldsim` process killed mid-run, for the resume tests: the command runs in a subprocess
and is SIGKILLed as soon as a file matching `pattern` appears under `out` (its first finished
unit: an item's manifest, a generation block). Shared by the media and record-run resume tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def sigkill_once_written(args: list[str], out: Path, pattern: str, env: dict, *, timeout: float = 120) -> None:
    """Run `python -m foldsim ARGS`, wait until `out.glob(pattern)` finds a file, then SIGKILL it
    (failing the test when the run ends first or nothing appears within `timeout` seconds)."""
    proc = subprocess.Popen([sys.executable, "-m", "foldsim", *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    try:
        while not any(out.glob(pattern)):
            assert proc.poll() is None and time.monotonic() < deadline, f"the run ended before writing {pattern}"
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
