"""`python -m foldsim` runs the command line (as the `foldsim` script does)."""

from .cli import main

main()
