"""Test-only: registers the stub record families (tests/record_family_stub.py) at interpreter
start when FOLDSIM_TEST_RECORD_FAMILIES is set, for processes the tests start (CLI subprocesses,
spawned media workers, Ray workers). Put on PYTHONPATH by `record_family_stub.plugin_env` and the
`toy_family` fixture only; foldsim itself has no hook for it."""

import os
import sys

if os.environ.get("FOLDSIM_TEST_RECORD_FAMILIES"):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import record_family_stub

    record_family_stub.register()
