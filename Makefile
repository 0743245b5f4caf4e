# Two entry points for a fresh machine (see README):
#   make demo   - set up the virtualenv, then render the lab fabric, start the loopback lab, inject faults, audit drift
#   make test   - set up the virtualenv, then run the whole test suite
#   make test-full - the same with every heavy property test at its full example count, then the 32k scale bench
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup system-packages demo test test-full lint bench bench-quick golden clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test]'
	touch $(STAMP)

setup: $(STAMP) system-packages

# Debian packages the tests need (yanglint, a browser, shellcheck, ...): debian-packages.txt
system-packages:
	tools/install-debian-packages

demo: $(STAMP)
	$(BIN)/roceconf demo

# three workers on the two-core CI machine: the suite waits on labs, browsers, package installs and Ansible's
# own processes part of the time, and a third worker fills those gaps (on one 2-core machine: 12.5 min with
# three workers against 17.6 min with two, every test passing both ways)
test: $(STAMP) system-packages
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -n 3 --dist loadgroup --no-loadscope-reorder -p no:cacheprovider

# what CI's `make test` leaves out (tests/heavy-tests.txt: the slow second witnesses, each with the lighter test
# in make test that makes the same assertion), halves, samples or leaves to a bench: hypothesis' full example counts (tests/strategies.py
# examples()), the slow drift reference on every pod device (make test: every faulted device, one of each shape
# and 24 more; tests/test_drift_reports.py) and the 32,768-GPU drift verdicts (bench/bench_scale.py)
test-full: $(STAMP) system-packages
	$(BIN)/ruff check .
	ROCECONF_TEST_FULL=1 $(BIN)/python -m pytest -n 3 --dist loadgroup --no-loadscope-reorder -p no:cacheprovider
	$(BIN)/python bench/bench_scale.py --fabric 32k --repeat 1

lint: $(STAMP)
	$(BIN)/ruff check .
	cd playbooks && ../$(BIN)/ansible-lint

# every bench/bench_*.py (the peers they compare with: the optional `bench` extra; bench_html: a browser).
# Each exits non-zero only when its correctness check fails; its targets are printed (OK / MISSED).
bench: $(STAMP) system-packages
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[test,bench]'
	rc=0; for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || { echo "== $$b: FAILED"; rc=1; }; done; \
	echo "== growth table (docs/performance.md)"; \
	$(BIN)/python bench/bench_scale.py --scale 1k --scale 4k --scale 16k --scale 32k --distinct --repeat 1 || rc=1; \
	exit $$rc

# each benchmark's correctness check on a small input (tests/test_bench_quick.py runs the same in `make test`)
bench-quick: $(STAMP) system-packages
	rc=0; for b in bench/bench_*.py; do echo "== $$b --quick"; $(BIN)/python $$b --quick || { echo "== $$b: FAILED"; rc=1; }; done; exit $$rc

golden: $(STAMP)
	$(BIN)/roceconf render inventories/lab/intent.yml -o tests/golden

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
