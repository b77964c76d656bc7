# One-command gates, used by people and CI alike.
#   make demo   set up, then drive the env with random actions (steps/s beside Gymnasium, PNG strip)
#   make test   set up, then lint (Rust + Python) and run every test (cargo + pytest)
# Set-up is a local virtualenv (.venv) with the extension built in release mode by maturin.

PY ?= python3
VENV ?= .venv
BIN := $(abspath $(VENV))/bin
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(BIN):$(PATH)
# Headless pygame (Gymnasium's reference renderer and our human mode) in CI and terminals.
export SDL_VIDEODRIVER ?= dummy
export SDL_AUDIODRIVER ?= dummy

.PHONY: setup build demo test test-rust test-python lint lint-rust lint-python bench parity clean miri

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

setup: $(BIN)/python
	$(BIN)/python -m pip install -q "maturin>=1.7,<2"
	$(BIN)/maturin develop --release --quiet --extras test

build: $(BIN)/python
	$(BIN)/maturin develop --release --quiet

demo: setup
	$(BIN)/python examples/random_drive.py

lint: lint-rust lint-python

lint-rust:
	cargo fmt --all -- --check
	cargo clippy --all-targets -- -D warnings
	cargo clippy --all-targets --features python -- -D warnings

lint-python:
	$(BIN)/ruff check reinfors_gym tests bench examples tools
	$(BIN)/python -m mypy.stubtest reinfors_gym._core

test-rust:
	cargo test --release

test-python:
	$(BIN)/python -m pytest -q

test: setup lint test-rust test-python

# Miri over the executor and the collector's buffer hand-off (the crate's thread-facing unsafe).
# The single-threaded hand-off runs with the aliasing model on. The tests that start rayon
# workers run with it off: rayon-core's scope and crossbeam-epoch trip its experimental rules
# inside those crates (rayon issue #952, #1185); every other check (data races, use after free,
# uninitialized reads, out-of-bounds) stays on, over several thread schedules.
MIRI_THREADED_FLAGS := -Zmiri-disable-isolation -Zmiri-ignore-leaks -Zmiri-disable-stacked-borrows -Zmiri-permissive-provenance -Zmiri-many-seeds=0..2
miri:
	rustup toolchain install nightly --profile minimal --component miri,rust-src
	cargo +nightly miri setup
	MIRIFLAGS="-Zmiri-strict-provenance" cargo +nightly miri test --lib -- append::tests::single_thread
	MIRIFLAGS="$(MIRI_THREADED_FLAGS)" cargo +nightly miri test --lib -- executor:: append::

bench: setup
	$(BIN)/python bench/bench_single.py

# The full side-by-side suite (>= 100 seeds per family, full episodes; ~15 min on 2 cores),
# then docs/parity.md from its results, then the criteria check.
parity: setup
	$(BIN)/python -m reinfors_gym.parity --seeds 100 --out out/parity/results.json
	$(BIN)/python tools/gen_parity_doc.py out/parity/results.json docs/parity.md
	$(BIN)/python -m pytest -q -m slow tests/parity

clean:
	rm -rf $(VENV) target
