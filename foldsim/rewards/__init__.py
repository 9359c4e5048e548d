"""`foldsim.rewards`: the reward functions for RL training (defined in foldsim.eval.rewards).

A public face above the evaluation layer (docs/development.md, Architecture): this package
re-exports, through `foldsim.rewards.trl`, what `foldsim.eval.rewards` defines, so nothing in the
model layer (the modules directly in foldsim/) imports eval."""
from .trl import *  # noqa: F401,F403
from .trl import __all__  # noqa: F401
