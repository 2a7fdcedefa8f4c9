# bordir: the two commands of README.md, each sets up its own virtual environment.
#   make demo   — set up and run the offline demo on the bundled data
#   make test   — set up and run the whole test suite, on every core (pytest -n auto)
#   make test-fast — the unit tier only (-m "not slow": no subprocess, local model, whole run or report), for the edit loop
#   make docs   — build the documentation site (warnings are errors)
#   make lint   — ruff check, ruff format --check and mypy (zero errors)
#   make bench  — every benchmark, one table (python -m benchmarks)

PYTHON ?= python3
VENV ?= .venv
PIP := $(VENV)/bin/pip
PY := $(VENV)/bin/python
export NO_MKDOCS_2_WARNING := 1

.PHONY: demo test test-fast docs lint bench clean

$(VENV)/bin/activate:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.dev: pyproject.toml | $(VENV)/bin/activate
	$(PIP) install -q -e '.[dev]'
	touch $@

$(VENV)/.demo: pyproject.toml | $(VENV)/bin/activate
	$(PIP) install -q -e '.[demo]'
	touch $@

demo: $(VENV)/.demo
	$(VENV)/bin/bordir demo --out bordir-demo

test: $(VENV)/.dev
	$(PY) -m pytest -n auto

test-fast: $(VENV)/.dev
	$(PY) -m pytest -n auto -m "not slow"

docs: $(VENV)/.dev
	$(VENV)/bin/mkdocs build --strict -d site

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check bordir tests benchmarks languages
	$(VENV)/bin/mypy

bench: $(VENV)/.dev
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) site build dist .pytest_cache bordir-demo
