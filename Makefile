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
.DELETE_ON_ERROR:
# apt waits this long for another apt (a machine still booting) instead of failing at once
APT := apt-get -o DPkg::Lock::Timeout=300 -o Acquire::Retries=3

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0

# marked done only once everything is in place: a failed step fails `make` and is redone next time
$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e .
	@if ! { command -v bwrap >/dev/null 2>&1 && ldconfig -p | grep -q libseccomp.so.2; }; then \
	  if [ "$$(id -u)" != 0 ]; then \
	    echo "rlgpt: the sandbox needs bubblewrap and libseccomp2:" \
	      "sudo apt-get install bubblewrap libseccomp2, then make again" >&2; exit 1; fi; \
	  $(APT) update -qq && $(APT) install -y -qq bubblewrap libseccomp2 || { \
	    echo "rlgpt: could not install bubblewrap and libseccomp2 (is another apt running?);" \
	      "make again once it is done" >&2; exit 1; }; \
	fi
	touch $@

$(VENV)/.dev: $(VENV)/.installed
	$(BIN)/pip install -q -e '.[dev,craftax]'
	touch $@

setup: $(VENV)/.installed

dev: $(VENV)/.dev

## run: the whole RL-GPT loop on make_stone_pickaxe (params.yaml), offline, through `dvc repro`
run: setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/dvc repro run
	@echo "summary: runs/dvc/summary.json   metrics: metrics/summary.json   lock: dvc.lock"

## results: the paper's claims on Crafter, full protocol (~2 h here; a rerun resumes): results/
results: setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/dvc repro results

## results-quick: the same, 2 seeds and small budgets (under 30 minutes here): results/quick/
results-quick: setup
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python benchmarks/paper.py --quick

## test: the default suite (about 20-25 minutes here)
test: dev
	$(BIN)/python -m pytest -q

## test-slow: the long tests (full-budget runs)
test-slow: dev
	$(BIN)/python -m pytest -q -m slow

lint: dev
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/mypy --explicit-package-bases rlgpt flows tasks benchmarks

clean:
	rm -rf runs metrics mlflow.db mlruns .prefect
