# The two commands of the README. Everything lives in .venv; torch comes first from its pinned
# CPU wheel, so no CUDA build is ever downloaded. `make run` needs Crafter only; the tests also
# install the craftax extra (JAX on the CPU) so the Craftax-Classic world is tested too.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
export DVC_NO_ANALYTICS := 1
export DO_NOT_TRACK := 1
export PREFECT_SERVER_ANALYTICS_ENABLED := false

.PHONY: setup dev run results results-quick test test-slow lint clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e .
	@{ command -v bwrap >/dev/null 2>&1 && ldconfig -p | grep -q libseccomp.so.2; } || \
	  { [ "$$(id -u)" = 0 ] && apt-get update -qq && apt-get install -y -qq bubblewrap libseccomp2; } \
	  || echo "install bubblewrap and libseccomp2 (the sandbox needs them)"
	touch $@

$(VENV)/.dev: $(VENV)/.installed
	$(BIN)/pip install -q -e '.[dev,craftax]'
	touch $@

setup: $(VENV)/.installed

dev: $(VENV)/.dev

## run: the whole RL-GPT loop on make_wood_pickaxe, offline, through `dvc repro` (params.yaml)
run: setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/dvc repro run
	@echo "summary: runs/dvc/summary.json   metrics: metrics/summary.json   lock: dvc.lock"

## results: the paper's claims on Crafter, full protocol (~1.5 h here; a rerun resumes): results/
results: setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/dvc repro results

## results-quick: the same, 2 seeds and small budgets (under 30 minutes here): results/quick/
results-quick: setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python benchmarks/paper.py --quick

## test: the default suite (under ~10 minutes here)
test: dev
	$(BIN)/python -m pytest -q

## test-slow: the long tests (full-budget runs)
test-slow: dev
	$(BIN)/python -m pytest -q -m slow

lint: dev
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/mypy rlgpt flows tasks

clean:
	rm -rf runs metrics mlflow.db mlruns .prefect
