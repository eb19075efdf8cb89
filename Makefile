# `make run` and `make test` each work as the first command on a fresh machine, and after
# one another: they create .venv when it is missing and (re)install when pyproject changes.
# `make run` installs the project alone (what serving needs); `make test`, `lint` and `bench`
# install the dev extra too (pytest, ruff, Playwright, the reference evaluators, ...).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev
# pytest-xdist workers for `make test`: the suite waits on timers, leases and sockets as much
# as it computes, so it runs more workers than the machine has cores
JOBS   ?= 3
ARGS   ?=

.PHONY: run test lint bench clean

# the first lines of both installs: Python 3.11+, .venv, and uv (a fast installer from
# PyPI, installed into .venv by its own pip: about 8 s for the dev install where pip
# alone takes 35 s); `install` falls back to pip should uv fail (pip's settings, such
# as a mirror in pip.conf, are then used as before)
define make_venv
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "cardroom needs Python 3.11 or newer")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@test -x $(BIN)/uv || $(BIN)/python -m pip install --quiet --disable-pip-version-check uv || true
endef

# $(call install,REQUIREMENT)
define install
	@if test -x $(BIN)/uv && $(BIN)/uv pip install --quiet --python $(BIN)/python $(1); then :; \
	else $(BIN)/python -m pip install --quiet --disable-pip-version-check $(1); fi
endef

$(RUN_STAMP): pyproject.toml
	$(make_venv)
	$(call install,-e .)
	@touch $(RUN_STAMP)

# the dev extra includes the project: the `make run` stamp is then up to date too
$(DEV_STAMP): pyproject.toml
	$(make_venv)
	$(call install,-e '.[dev]')
	@touch $(DEV_STAMP) $(RUN_STAMP)

run: $(RUN_STAMP)
	$(BIN)/cardroom serve

# `make test ARGS="tests/engine -k evaluator"` runs a part; JOBS=0 runs it in this one process (no workers).
# Python keeps the modules it compiles (__pycache__, gitignored) even where the environment
# says not to (PYTHONDONTWRITEBYTECODE, as images often do): otherwise each of the hundreds
# of processes the suite starts compiles them again (5 s of CPU per worker's collection alone)
test: $(DEV_STAMP)
	$(BIN)/ruff check .
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n $(JOBS) --dist loadgroup --no-loadscope-reorder $(ARGS)

lint: $(DEV_STAMP)
	$(BIN)/ruff check .

bench: $(DEV_STAMP)
	$(BIN)/python bench/eval_bench.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
