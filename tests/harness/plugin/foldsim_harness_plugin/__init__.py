"""lmms-eval plugin of `make test-harness` (registered by the entry point in ../pyproject.toml)."""
