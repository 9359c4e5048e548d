# Every target installs what it needs into .venv by itself (only Python 3.11+ is assumed).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test fuzz bench install clean docs cli-docs test-package test-lowest architecture snapshot-compare

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[test,datasets,ray,report,docs]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	PYOPENGL_PLATFORM=egl $(BIN)/python -m examples.demo

# one pytest worker per core (pytest-xdist), each test file on one worker (its module fixtures, e.g. a
# local Ray instance, started once); the report's browser tests drive Debian's chromium: installed here when missing, best-effort (without
# apt or root the tests skip themselves and say why; the target never fails for it)
test: $(STAMP)
	@command -v chromium >/dev/null 2>&1 || (command -v apt-get >/dev/null 2>&1 && \
		(apt-get install -y -q chromium >/dev/null 2>&1 || (apt-get update -q >/dev/null 2>&1 && \
		 apt-get install -y -q chromium >/dev/null 2>&1))) || echo "chromium not installed: the browser tests will skip"
	npm ci --prefix tests/node --no-audit --no-fund --loglevel=error  # FOLD readers for tests/test_foldfile.py (needs Node.js)
	$(BIN)/lint-imports  # the import contract: one-way layers, independent families, no cycles (docs/development.md)
	PYOPENGL_PLATFORM=egl $(BIN)/python -m pytest -q -m "not slow" -n auto --dist loadfile

# the fuzz tests with at least 10,000 examples each, and the long runs `make test` leaves out (`slow`:
# 200 items of every family level, the exact reference on a sample of the physical space)
fuzz: $(STAMP)
	FOLDSIM_FUZZ_EXAMPLES=10000 PYOPENGL_PLATFORM=egl $(BIN)/python -m pytest -q -m "fuzz or slow"

bench: $(STAMP)
	PYOPENGL_PLATFORM=egl $(BIN)/python -m benchmarks

# the layers picture in docs/development.md ("Architecture"), redrawn from the code's imports and the
# import contract (tests/test_layers.py fails while it is stale)
architecture: $(STAMP)
	$(BIN)/python tools/architecture.py --write

# a refactor's proof of unchanged behaviour: the SHA-256 of every file the demo, generate --family and
# the exports write, against tools/snapshot.json (recorded before the refactor; ~4 min on 2 cores)
snapshot-compare: $(STAMP)
	PYOPENGL_PLATFORM=egl $(BIN)/python tools/snapshot.py compare

# the documentation site (mkdocs-material, API reference from the docstrings) into site/;
# `make test` runs the same build with --strict (tests/test_docs.py)
docs: $(STAMP)
	$(BIN)/mkdocs build --strict --site-dir site

# docs/cli.md from the command line itself (every command's docstring and options, as --help prints
# them; foldsim/cli/manual.py); tests/test_cli_help.py fails while the page is stale
cli-docs: $(STAMP)
	$(BIN)/python -m foldsim.cli.manual docs/cli.md

# the wheel, pip-installed into a bare venv with every dependency from the registry, then used from
# another folder (tests/test_package.py; `make test` runs the offline variant)
test-package: $(STAMP)
	FOLDSIM_TEST_PACKAGE=1 PYOPENGL_PLATFORM=egl $(BIN)/python -m pytest -q -rs tests/test_package.py

# every `>=` bound of pyproject.toml installed at its lower end into a fresh venv, then a subset of
# the tests that touches each dependency (downloads about 1 GB; the lowest-bounds venv is kept in
# .venv-lowest for a look afterwards)
LOWEST        := .venv-lowest
LOWEST_EXTRAS := test,datasets,ray,report,docs
LOWEST_TESTS  := tests/test_package.py tests/test_docs.py tests/test_conformance.py tests/test_properties.py \
	tests/test_compact.py tests/test_scoring.py tests/test_verify.py tests/test_answers.py tests/test_prompts.py \
	tests/test_requests.py tests/test_runner.py tests/test_text.py tests/test_images.py tests/test_animation.py \
	tests/test_generate.py tests/test_export.py tests/test_rewards.py tests/test_report.py tests/test_ray.py \
	tests/test_bad_input.py
test-lowest: $(STAMP)
	rm -rf $(LOWEST)
	$(PYTHON) -m venv $(LOWEST)
	$(BIN)/python tests/test_package.py lowest-constraints $(LOWEST_EXTRAS) > $(LOWEST)/constraints.txt
	$(LOWEST)/bin/pip install -q --upgrade pip
	$(LOWEST)/bin/pip install -q -c $(LOWEST)/constraints.txt -e ".[$(LOWEST_EXTRAS)]"
	$(LOWEST)/bin/pip check
	$(LOWEST)/bin/python tests/test_package.py check-lowest $(LOWEST_EXTRAS)
	PYOPENGL_PLATFORM=egl FOLDSIM_FUZZ_EXAMPLES=200 $(LOWEST)/bin/python -m pytest -q -p no:cacheprovider $(LOWEST_TESTS)

# the exports run through the real harnesses, each installed into its own venv under .harness/ (not
# .venv; reused while unchanged): lmms-eval and TRL from PyPI, VLMEvalKit from the checkout named by
# VLMEVALKIT_SRC (it is on no registry), `datasets` at its declared lower bound. Fails, saying why,
# when a harness cannot be installed. Needs no GPU; ~10 GB of venvs, 15-25 min the first time, ~3 min after.
.PHONY: test-harness
test-harness:
	PYOPENGL_PLATFORM=egl $(PYTHON) tests/harness/run.py

clean:
	rm -rf $(VENV) $(LOWEST) demo-out site dist .pytest_cache .hypothesis
