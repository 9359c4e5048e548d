# Every target installs what it needs into .venv by itself (only Python 3.11+ is assumed).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test fuzz bench install clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[test,datasets,ray,report]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	PYOPENGL_PLATFORM=egl $(BIN)/python -m examples.demo

# the report's browser tests drive Debian's chromium: installed here when missing, best-effort (without
# apt or root the tests skip themselves and say why; the target never fails for it)
test: $(STAMP)
	@command -v chromium >/dev/null 2>&1 || (command -v apt-get >/dev/null 2>&1 && \
		(apt-get install -y -q chromium >/dev/null 2>&1 || (apt-get update -q >/dev/null 2>&1 && \
		 apt-get install -y -q chromium >/dev/null 2>&1))) || echo "chromium not installed: the browser tests will skip"
	PYOPENGL_PLATFORM=egl $(BIN)/python -m pytest -q

# the fuzz tests alone, with at least 10,000 examples each
fuzz: $(STAMP)
	FOLDSIM_FUZZ_EXAMPLES=10000 PYOPENGL_PLATFORM=egl $(BIN)/python -m pytest -q -m fuzz

bench: $(STAMP)
	PYOPENGL_PLATFORM=egl $(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) demo-out .pytest_cache .hypothesis
