# specverdict: two commands on a fresh machine with Python 3.11 and make.
#   make demo   creates .venv, installs, runs the demo job on the embedded reference engine
#   make test   installs the dev extra and runs ruff, mypy and pytest
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUN_STAMP := $(VENV)/.stamp-run
DEV_STAMP := $(VENV)/.stamp-dev
TRAIN_STAMP := $(VENV)/.stamp-train

.PHONY: demo test lint typecheck pytest bench train clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(DEV_STAMP): pyproject.toml $(RUN_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

# torch==2.13.0 is the CPU wheel; installed only for training.
$(TRAIN_STAMP): pyproject.toml $(RUN_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[train]'
	touch $@

demo: $(RUN_STAMP)
	$(BIN)/specverdict demo --out reports/demo

lint: $(DEV_STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: $(DEV_STAMP)
	$(BIN)/mypy

pytest: $(DEV_STAMP)
	$(BIN)/pytest

test: lint typecheck pytest

bench: $(DEV_STAMP)
	$(BIN)/python benchmarks/reference_engine.py --write benchmarks/RESULTS.md

train: $(TRAIN_STAMP)
	$(BIN)/python -m specverdict.reference.train

clean:
	rm -rf $(VENV) reports .pytest_cache .mypy_cache .ruff_cache
