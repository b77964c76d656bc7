# One-command gates, used by people and CI alike.
#   make demo   set up, then drive the env with random actions (steps/s beside Gymnasium, PNG strip)
#   make test   set up, then lint (Rust + Python) and run every test (cargo + pytest)
#   make test-integrations   the SB3 / TorchRL / skrl / CleanRL and RLlib suites, each in its
#               own virtualenv (.venv-sb3, .venv-rllib: RLlib pins gymnasium==1.2.2)
# Set-up is a local virtualenv (.venv) with the extension built in release mode by maturin.
# Beyond those: make docs / test-docs (the site, in a browser), make wheel / test-wheel (the
# manylinux wheel, installed where no Rust is), make test-aarch64 (clippy and tests under qemu).

PY ?= python3
VENV ?= .venv
BIN := $(abspath $(VENV))/bin
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(BIN):$(PATH)
# Headless pygame (Gymnasium's reference renderer and our human mode) in CI and terminals.
export SDL_VIDEODRIVER ?= dummy
export SDL_AUDIODRIVER ?= dummy

.PHONY: setup build demo test test-rust test-python lint lint-rust lint-python bench parity clean \
	miri docs test-docs wheel test-wheel test-aarch64 \
	test-integrations test-integrations-sb3 test-integrations-rllib bench-sb3 bench-training

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

# The integration suites. Each virtualenv is (re)created when its requirements file changes;
# the package goes in with `maturin develop` (an editable install reusing setup's Rust build).
# TORCH_PIP_ARGS: extra pip options for torch alone (e.g. --index-url of a CPU-only index).
TORCH_PIP_ARGS ?=
VENV_SB3 ?= .venv-sb3
VENV_RLLIB ?= .venv-rllib
INTEGRATION_PYTEST := -m pytest -c tests/integrations/pytest.ini -q

# $(1): the virtualenv, $(2): its requirements file (torch first, so TORCH_PIP_ARGS apply).
define make_venv
	rm -rf $(1)
	$(PY) -m venv $(1)
	$(1)/bin/python -m pip install -q --upgrade pip
	$(1)/bin/python -m pip install -q $(TORCH_PIP_ARGS) "$$(grep -E '^torch==' $(2))"
	$(1)/bin/python -m pip install -q -r $(2)
	touch $(1)/.requirements-installed
endef

$(VENV_SB3)/.requirements-installed: tests/integrations/requirements-sb3.txt
	$(call make_venv,$(VENV_SB3),$<)

$(VENV_RLLIB)/.requirements-installed: tests/integrations/requirements-rllib.txt
	$(call make_venv,$(VENV_RLLIB),$<)

test-integrations-sb3: setup $(VENV_SB3)/.requirements-installed
	VIRTUAL_ENV=$(abspath $(VENV_SB3)) $(BIN)/maturin develop --release --quiet
	$(VENV_SB3)/bin/python $(INTEGRATION_PYTEST) tests/integrations/test_sb3.py \
		tests/integrations/test_torchrl.py tests/integrations/test_cleanrl_skrl.py \
		tests/integrations/test_evaluate.py

test-integrations-rllib: setup $(VENV_RLLIB)/.requirements-installed
	VIRTUAL_ENV=$(abspath $(VENV_RLLIB)) $(BIN)/maturin develop --release --quiet
	$(VENV_RLLIB)/bin/python $(INTEGRATION_PYTEST) tests/integrations/test_rllib.py

test-integrations: test-integrations-sb3 test-integrations-rllib

# PPO("CnnPolicy") rollout collection on make_sb3_vec_env(8) beside SubprocVecEnv(CarRacing-v3).
bench-sb3: test-integrations-sb3
	$(VENV_SB3)/bin/python bench/bench_sb3.py

# The PPO recipe of docs/training.md end to end: the streaming collector beside AsyncVectorEnv.
bench-training: test-integrations-sb3
	$(VENV_SB3)/bin/python bench/bench_training.py --updates 6 --trials 3

bench: setup
	$(BIN)/python bench/bench_single.py

# The full side-by-side suite (>= 100 seeds per family, full episodes; ~15 min on 2 cores),
# then docs/parity.md from its results, then the criteria check.
parity: setup
	$(BIN)/python -m reinfors_gym.parity --seeds 100 --out out/parity/results.json
	$(BIN)/python tools/gen_parity_doc.py out/parity/results.json docs/parity.md
	$(BIN)/python -m pytest -q -m slow tests/parity

# The documentation site: its own virtualenv with the toolchain pinned in docs/requirements.txt
# (reinstalled when that file changes), so the test venv never sees mkdocs' dependencies.
DOCS_VENV ?= .venv-docs
DOCS_BIN := $(abspath $(DOCS_VENV))/bin

$(DOCS_BIN)/.installed: docs/requirements.txt
	$(PY) -m venv $(DOCS_VENV)
	$(DOCS_BIN)/python -m pip install -q --upgrade pip
	$(DOCS_BIN)/python -m pip install -q -r docs/requirements.txt
	touch $@

# --strict: a broken link, a missing page in the nav or a docstring griffe cannot read fails.
docs: $(DOCS_BIN)/.installed
	NO_MKDOCS_2_WARNING=1 $(DOCS_BIN)/mkdocs build --strict

# Every page in headless Chromium (Debian's chromium and chromium-driver; .ci/run installs them).
test-docs: docs
	$(DOCS_BIN)/python -m pytest -q -p no:cacheprovider tests/docs

# An abi3 wheel linked by zig against glibc 2.17 (manylinux2014), and the sdist. Pinned tools:
# ziglang is the zig that maturin --zig links with; auditwheel names the policy.
WHEEL_TOOLS := "ziglang==0.17.0" "auditwheel==6.8.2"

wheel: $(BIN)/python
	$(BIN)/python -m pip install -q "maturin>=1.7,<2" $(WHEEL_TOOLS)
	rm -rf dist
	$(BIN)/maturin build --release --zig --compatibility manylinux2014 --out dist
	$(BIN)/maturin sdist --out dist
	$(BIN)/auditwheel show dist/*.whl

# Tags, policy and sdist checked; the wheel installed into fresh venvs (newest and oldest allowed
# dependencies) with no cargo/rustc on PATH, and smoke-tested there.
test-wheel: wheel
	$(BIN)/python tools/check_wheel.py

# aarch64 Linux cross-built, linted and tested under qemu-user. The linker and runner are set
# here, not in a .cargo/config, so x86-64 builds are untouched. Needs Debian's qemu-user,
# gcc-aarch64-linux-gnu and libc6-dev-arm64-cross (.ci/run installs them).
AARCH64 := aarch64-unknown-linux-gnu
AARCH64_ENV := CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
	CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"

test-aarch64:
	@command -v qemu-aarch64 >/dev/null && command -v aarch64-linux-gnu-gcc >/dev/null || \
		{ echo "test-aarch64 needs: apt-get install -y qemu-user gcc-aarch64-linux-gnu" \
		"libc6-dev-arm64-cross"; exit 1; }
	rustup target add $(AARCH64)
	cargo clippy --target $(AARCH64) --all-targets -- -D warnings
	cargo clippy --target $(AARCH64) --all-targets --features python -- -D warnings
	$(AARCH64_ENV) cargo test --release --target $(AARCH64)
	@echo "== frame hashes on $(AARCH64) against the x86-64 record:"
	$(AARCH64_ENV) cargo test -q --release --target $(AARCH64) --test frame_hash -- --nocapture

clean:
	rm -rf $(VENV) $(DOCS_VENV) $(VENV_SB3) $(VENV_RLLIB) .venv-wheel-test target site dist
