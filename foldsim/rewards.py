"""`foldsim.rewards`: the reward functions for RL training (defined in foldsim.eval.rewards)."""
from .eval.rewards import *  # noqa: F401,F403
from .eval.rewards import __all__  # noqa: F401
