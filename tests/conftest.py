"""Shared fixtures. The published MentalBlackboard files are read from ../shared beside the
checkout; tests that need them fail (never skip) when they are missing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
# one persistent XLA compilation cache for the whole run, the CLI subprocesses included: the general
# engine compiles once per (mesh, actions, punches, rows) shape, and most tests share a few shapes
os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", str(Path(__file__).resolve().parents[1] / ".pytest_cache" / "jax"))
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "-1")

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DATA = SHARED / "data" / "mentalblackboard"
PLANNING = DATA / "PFHP_Planning_Data.json"
GENERALIZATION = DATA / "PFHP_Generalization_Data.json"


#: examples per fuzz test: a few thousand in `make test`, FOLDSIM_FUZZ_EXAMPLES=10000 in `make fuzz`
FUZZ_EXAMPLES = int(os.environ.get("FOLDSIM_FUZZ_EXAMPLES", "2000"))


def fuzz_settings(share: float = 1.0):
    """Hypothesis settings for a fuzz test (mark it `@pytest.mark.fuzz` too): `share` of
    FUZZ_EXAMPLES examples, no deadline (time limits are asserted by the test itself, per input,
    where it matters), no shrinking-time surprises from the health checks."""
    from hypothesis import HealthCheck, settings

    return settings(max_examples=max(1, int(FUZZ_EXAMPLES * share)), deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


def require(path: Path) -> Path:
    """The path, or a test failure saying the shared data is missing."""
    if not path.exists():
        pytest.fail(f"shared data missing: {path} (tests read ../shared/data/mentalblackboard)")
    return path


@pytest.fixture(scope="session")
def planning_file() -> Path:
    return require(PLANNING)


@pytest.fixture(scope="session")
def generalization_file() -> Path:
    return require(GENERALIZATION)


def pytest_collection_modifyitems(config, items):
    """GPU-marked tests are deselected (not skipped) unless JAX sees a CUDA device."""
    import jax

    if any(d.platform == "gpu" for d in jax.devices()):
        return
    gpu_only = [item for item in items if "gpu" in item.keywords]
    if gpu_only:
        config.hook.pytest_deselected(items=gpu_only)
        items[:] = [item for item in items if "gpu" not in item.keywords]
