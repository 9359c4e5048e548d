"""The TRL GRPO reward functions `foldsim.rewards` re-exports (defined in foldsim.eval.rewards).

The package's `__init__` imports only this module of its own package, so an import-graph tool that
files `foldsim/<package>/__init__.py` with the modules directly in foldsim/ still sees the face
import eval from the `rewards` package, not from the model layer."""
from ..eval.rewards import *  # noqa: F401,F403
from ..eval.rewards import __all__  # noqa: F401
