"""`python -m foldsim.cli` runs the command line (as the `foldsim` script does)."""

from . import main

main()
