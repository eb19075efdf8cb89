# `make run` and `make test` each work as the first command on a fresh machine:
# they create .venv when it is missing and (re)install the project when pyproject changes.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# pytest-xdist workers for `make test`: the suite waits on timers, leases and sockets as much
# as it computes, so it runs more workers than the machine has cores
JOBS   ?= 3
ARGS   ?=

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "cardroom needs Python 3.11 or newer")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/cardroom serve

# `make test ARGS="tests/engine -k evaluator"` runs a part; JOBS=0 runs it in this one process (no workers)
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n $(JOBS) --dist loadgroup --no-loadscope-reorder $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python bench/eval_bench.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
