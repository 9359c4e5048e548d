"""Media rendering past one machine: every item a Ray task (`foldsim generate|render --backend ray`).

The driver (the foldsim command) plans the items, holds the output folder's lock, writes manifests
and the data file, and shows the progress bar, exactly as with local workers; a Ray task runs
`media.render_item` for one item and returns its manifest entries (file sizes and hashes). So the
guarantees are the local ones: the same bytes as `--workers 1` (rendering and encoding are
deterministic and single-threaded per item), atomic files written by the task where they belong,
resume from manifests, one failing item reported while the others go on, and on an interrupt the
tasks in flight are cancelled and a Ray instance this run started is shut down.

Without `address` a local Ray instance with `workers` CPUs is started and stopped by the run. With
an address (`auto`, `HOST:6379` or `ray://HOST:10001`) the tasks run on that cluster: every node
needs foldsim installed and the output folder mounted at the same path (shared storage), since tasks
write there and the driver reads it back. Ray is imported only here, only when asked for.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence

from ..errors import InputError

#: items in flight per cluster CPU: enough to keep every worker busy, few enough that a million
#: items never sit in Ray's object store at once
IN_FLIGHT_PER_CPU = 2


def require_ray():
    """The ray module, or an InputError naming --backend when it is not installed."""
    try:
        import ray
    except ImportError:
        raise InputError("Ray is not installed; install it with: pip install 'foldsim[ray]'", field="--backend") from None
    return ray


#: seconds to wait for a TCP answer from a cluster address before asking Ray (which retries for minutes)
CONNECT_TIMEOUT_S = 5.0


def check_reachable(address: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """An InputError naming --address, at once, when nothing answers at a HOST:PORT or
    ray://HOST:PORT address: `ray.init` would otherwise retry for minutes before failing. `auto`
    (the local node's cluster, found by Ray itself) is left to Ray."""
    import socket

    target = address.removeprefix("ray://")
    if address == "auto" or ":" not in target:
        return
    host, _, port = target.rpartition(":")
    try:
        number = int(port)
    except ValueError:
        raise InputError(f"{address!r} is not HOST:PORT, ray://HOST:PORT or auto", field="--address") from None
    try:
        with socket.create_connection((host.strip("[]"), number), timeout=timeout):
            pass
    except OSError as error:
        raise InputError(f"cannot reach the Ray cluster at {address}: {error.strerror or error}", field="--address") from None


def start_ray(ray, address: str | None, workers: int) -> bool:
    """Connect to the cluster at `address`, or start a local instance with `workers` CPUs; returns
    whether this call started (and so must stop) it. Ray's own logging is kept to errors."""
    if ray.is_initialized():
        return False
    try:
        with warnings.catch_warnings():  # JAX warns on any fork; Ray starts its processes by fork + exec
            warnings.filterwarnings("ignore", message=r"os\.fork\(\) was called", category=RuntimeWarning)
            if address:
                check_reachable(address)
                ray.init(address=address, logging_level="ERROR", log_to_driver=False)
            else:
                ray.init(num_cpus=workers, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    except InputError:
        raise
    except Exception as error:  # Ray raises ConnectionError, RuntimeError, ValueError ... for a bad address
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        message = " ".join(str(error).split())[:200]
        raise InputError(f"cannot start or reach {where}: {message}", field="--address" if address else "--backend") from None
    return True


def task_error(ray, error: BaseException) -> BaseException:
    """The item's own exception out of Ray's wrapper (so its one-line reason and errno survive), or
    a one-line RuntimeError for Ray's failures (a worker or node lost, a task cancelled)."""
    cause = getattr(error, "cause", None)
    if isinstance(error, ray.exceptions.RayTaskError) and isinstance(cause, BaseException):
        return cause
    first = (str(error).strip().splitlines() or [""])[0]
    return RuntimeError(f"Ray: {type(error).__name__}: {first}"[:300])


def ray_jobs(job: Callable[..., dict], plans: Sequence, out_dir: str, request, *, workers: int = 1,
             address: str | None = None, name: Callable[[object], str] | None = None
             ) -> Iterator[tuple[str, dict | BaseException]]:
    """(id, manifest entries or the error) per plan as its Ray task `job(plan, out_dir, request)`
    finishes (see the module doc): `plans` are foldsim.dataset.media's ItemPlans, `request` its
    MediaRequest, `job` its module-level render job (passed in, so this module needs nothing of media).
    `name(plan)`: what a plan is reported as (default: its record's id; a record run's blocks
    name themselves, foldsim.dataset.record_runs)."""
    name = name or (lambda plan: str(plan.record["id"]))
    ray = require_ray()
    started = start_ray(ray, address, workers)
    running: dict = {}
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(job)
        cpus = int(ray.cluster_resources().get("CPU", workers)) or 1
        limit = IN_FLIGHT_PER_CPU * cpus
        pending = iter(plans)
        while True:
            while len(running) < limit and (plan := next(pending, None)) is not None:
                running[task.remote(plan, out_dir, request)] = name(plan)
            if not running:
                return
            done, _ = ray.wait(list(running), num_returns=1)
            for ref in done:
                item_id = running.pop(ref)
                try:
                    outcome = ray.get(ref)
                except Exception as error:  # the item failed, or Ray lost its worker: report, go on
                    outcome = task_error(ray, error)
                yield item_id, outcome
    finally:  # done, interrupted, or the consumer stopped early: nothing keeps running
        for ref in running:
            try:
                ray.cancel(ref, force=True)
            except Exception:
                pass
        if started:
            ray.shutdown()
