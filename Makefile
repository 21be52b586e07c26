# scorekit — two commands set everything up on a fresh machine:
#   make demo   create .venv, install everything, run the main job on shipped example data
#   make test   create .venv if needed, install everything, run the whole test suite
#   make wheel  build dist/scorekit-<version>-py3-none-any.whl (package data included) to
#               `pip install` elsewhere, e.g. pip install 'dist/scorekit-0.1.0-py3-none-any.whl[neural]'
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export HF_DATASETS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false
PYTEST_ARGS ?=

DIST   ?= dist

.PHONY: all install sysdeps demo test test-fast bench bench-kernels wheel clean

all: test

sysdeps:
	@bash scripts/sysdeps.sh

# torch first, pinned to the CPU wheel (2.13.0) that this platform serves from local disk: a bare
# `torch` requirement would pull a multi-GB CUDA build. Then scorekit with every extra.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip setuptools wheel
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e '.[all,test]'
	@touch $(STAMP)

install: sysdeps $(STAMP)

demo: install
	@bash examples/demo.sh

test: install
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q $(PYTEST_ARGS)

test-fast: install
	$(BIN)/python -m pytest -n 2 --dist loadgroup -q -m "not slow and not browser" $(PYTEST_ARGS)

# end to end: the scorekit command vs each anchor's whole pipeline at 1x/4x/16x (BENCHMARKS.md)
bench: install
	$(BIN)/python -m benchmarks --no-kernels

# in-process kernel benchmarks (benchmarks/bench_*.py)
bench-kernels: install
	$(BIN)/python -m benchmarks --kernels-only

# the wheel needs only setuptools and wheel: an existing .venv's, or a small one made for it
wheel:
	@test -x $(BIN)/python || { $(PYTHON) -m venv $(VENV) && $(BIN)/python -m pip install -q --upgrade pip setuptools wheel; }
	$(BIN)/python -m pip wheel -q --no-deps --no-build-isolation -w $(DIST) .

clean:
	rm -rf $(VENV) build dist .pytest_cache .hypothesis src/*.egg-info
