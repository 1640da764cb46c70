# `make test` and `make demo` each create or update .venv (idempotent), then run.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
EXTRAS ?= dev,llm,bench
# The stamp changes whenever the dependency spec changes, so edits trigger a reinstall.
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml Makefile | sha1sum | cut -c1-12)

.PHONY: setup test test-fast demo lint bench-env clean

setup: $(STAMP)

$(STAMP):
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade "pip>=24"
	$(BIN)/python -m pip install -q -e ".[$(EXTRAS)]"
	rm -f $(VENV)/.installed-*
	touch $@

test: setup
	$(BIN)/python -m pytest

test-fast: setup
	$(BIN)/python -m pytest -m "not slow"

demo: setup
	$(BIN)/sotopia-tom validate tiny
	$(BIN)/python benchmarks/env_step.py --episodes 20

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench-env: setup
	$(BIN)/python benchmarks/env_step.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
