# Two entry points for a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup demo test test-slow test-oldest bench bench-agents lint clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	# CPU torch first, so that nothing pulls CUDA builds (design card).
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[train,dev,openspiel]"
	touch $@

setup: $(VENV)/.installed

demo: setup
	$(BIN)/python -m experiments.demo --games 200 --out results/demo

test: setup
	$(BIN)/python -m pytest -q -n 2

test-slow: setup
	$(BIN)/python -m pytest -q -m slow

# The oldest supported dependency set (the lower bounds in pyproject.toml), in a
# throwaway venv, on the core test modules.
test-oldest:
	PY=$(PY) scripts/check_oldest.sh /tmp/evenstar-oldest

bench: setup
	$(BIN)/python benchmarks/bench_engine.py
	$(BIN)/python benchmarks/bench_env.py
	$(BIN)/python benchmarks/bench_vector.py
	$(BIN)/python benchmarks/bench_cards.py

bench-agents: setup
	$(BIN)/python benchmarks/bench_agents.py --agents random heuristic ismcts ppo --games 2 --seed 1001

lint: setup
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) results .pytest_cache
