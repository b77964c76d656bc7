# One-command gates, used by people and CI alike. Times are from this project's 2-core machine.
#   make demo   set up, then drive the env along the track: steps/s beside Gymnasium, PNG strip
#               (~2 min fresh, seconds once set up)
#   make test   set up, then lint (Rust + Python) and run every test (cargo + pytest), the Rust
#               and Python lanes side by side (-j2) (~5 min fresh, ~2 min once set up)
#   make test-integrations   the SB3 / TorchRL / skrl / CleanRL and RLlib suites, each in its
#               own virtualenv (.venv-sb3, .venv-rllib: RLlib pins gymnasium==1.2.2)
#   make test-gymnasiums   the versions, vector-wrapper, drop-in and parity suites under each
#               Gymnasium we declare (1.1.1, 1.2.2, 1.3.0, 1.4.0), each in .venv-gym-VERSION
#   make test-pythons   the abi3 wheel installed and the quick suite run on Python 3.10, 3.12
#               and 3.13 (pyenv's interpreters), each in .venv-pyVERSION
# Set-up is a local virtualenv (.venv) with the extension built in release mode by maturin.
# Beyond those: make docs / test-docs (the site, in a browser), make wheel / test-wheel (the
# manylinux wheel, installed where no Rust is), make test-aarch64 (clippy and tests under qemu).
#
# Output is quiet: each step prints one "== ..." line and its time; a step's full output goes to
# out/logs/ and is printed only when the step fails (tools/quietly.sh).

PY ?= python3
VENV ?= .venv
BIN := $(abspath $(VENV))/bin
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(BIN):$(PATH)
# Headless pygame (Gymnasium's reference renderer and our human mode) in CI and terminals.
export SDL_VIDEODRIVER ?= dummy
export SDL_AUDIODRIVER ?= dummy
export PIP_DISABLE_PIP_VERSION_CHECK := 1
QUIETLY := tools/quietly.sh
MATURIN := "maturin>=1.7,<2"

.PHONY: setup build demo test test-rust test-python lint lint-rust lint-python bench parity clean \
	miri docs test-docs wheel test-wheel test-aarch64 \
	test-integrations test-integrations-sb3 test-integrations-rllib integration-venvs bench-sb3 bench-training \
	bench-async \
	test-lanes test-lane-rust test-lane-python test-rust-linted lint-python-steps train train-setup \
	test-gymnasiums gymnasium-venvs test-pythons dist-wheel bench-ab-instructions

$(BIN)/python:
	@$(QUIETLY) venv "creating $(VENV) and upgrading pip" \
		sh -c '$(PY) -m venv $(VENV) && $(BIN)/python -m pip install -q --upgrade pip'

setup: $(BIN)/python
	@$(QUIETLY) maturin "installing maturin" $(BIN)/python -m pip install -q $(MATURIN)
	@$(QUIETLY) develop "building the extension (release) and installing the test extras" \
		$(BIN)/maturin develop --release --quiet --extras test

build: $(BIN)/python
	@$(QUIETLY) develop "building the extension (release)" $(BIN)/maturin develop --release --quiet

demo: setup
	@echo "== driving the env (examples/random_drive.py)"
	@$(BIN)/python examples/random_drive.py

lint: lint-rust lint-python

lint-rust:
	@$(QUIETLY) fmt "cargo fmt --check" cargo fmt --all -- --check
	@$(QUIETLY) clippy "cargo clippy --all-targets" cargo clippy --all-targets -- -D warnings
	@$(QUIETLY) clippy-python "cargo clippy --all-targets --features python" \
		cargo clippy --all-targets --features python -- -D warnings

lint-python: setup
	@$(MAKE) --no-print-directory lint-python-steps

# lint-python without the set-up it needs (make test orders them itself).
lint-python-steps:
	@$(QUIETLY) ruff "ruff check" $(BIN)/ruff check reinfors_gym tests bench examples tools
	@$(QUIETLY) ruff-format "ruff format --check" \
		$(BIN)/ruff format --check reinfors_gym tests bench examples tools
	@$(QUIETLY) stubtest "mypy.stubtest reinfors_gym._core" \
		$(BIN)/python -m mypy.stubtest reinfors_gym._core

# Cargo's `test` profile (Cargo.toml): optimized, without release's fat LTO, so the tests do not
# rebuild the crate the slow way beside maturin's release build.
test-rust:
	@$(QUIETLY) cargo-test-build "building the Rust tests (test profile)" cargo test --no-run
	@echo "== cargo test"
	@env -u MAKEFLAGS -u MFLAGS cargo test --quiet

# Two pytest workers (pytest-xdist): the Python lane is the longer one, and the Rust lane's
# core is free once cargo test is done.
test-python:
	@echo "== pytest (2 workers)"
	@$(BIN)/python -m pytest -q -n 2

# Two lanes on two cores: Rust (fmt, clippy, cargo test, then ruff and stubtest once the
# set-up is done) beside Python (set-up, pytest), the longer one. One make schedules both, so the
# set-up runs once. Each step's output is printed whole when it ends (-Oline): lanes do not mix.
test:
	@$(MAKE) --no-print-directory -j2 -Oline test-lanes

test-lanes: test-lane-rust test-lane-python

test-lane-rust: test-rust-linted setup
	@$(MAKE) --no-print-directory lint-python-steps

test-rust-linted: lint-rust
	@$(MAKE) --no-print-directory test-rust

test-lane-python: setup
	@$(MAKE) --no-print-directory test-python

# Miri over the executor and the collector's buffer hand-off (the crate's thread-facing unsafe).
# The single-threaded hand-off runs with the aliasing model on. The tests that start rayon
# workers run with it off: rayon-core's scope and crossbeam-epoch trip its experimental rules
# inside those crates (rayon issue #952, #1185); every other check (data races, use after free,
# uninitialized reads, out-of-bounds) stays on, over several thread schedules.
MIRI_THREADED_FLAGS := -Zmiri-disable-isolation -Zmiri-ignore-leaks -Zmiri-disable-stacked-borrows -Zmiri-permissive-provenance -Zmiri-many-seeds=0..2
miri:
	@$(QUIETLY) miri-toolchain "installing the nightly toolchain with Miri" \
		rustup toolchain install nightly --profile minimal --component miri,rust-src
	@$(QUIETLY) miri-setup "cargo miri setup" cargo +nightly miri setup
	@echo "== Miri: the single-threaded hand-off, aliasing model on"
	@MIRIFLAGS="-Zmiri-strict-provenance" cargo +nightly miri test -q --lib -- runtime::append::tests::single_thread
	@echo "== Miri: the executor and the threaded hand-off"
	@MIRIFLAGS="$(MIRI_THREADED_FLAGS)" cargo +nightly miri test -q --lib -- runtime::executor:: runtime::append::

# The integration suites. Each virtualenv is (re)created when its requirements file changes;
# the package goes in with `maturin develop` (an editable install reusing setup's Rust build).
# TORCH_PIP_ARGS: pip options for torch alone. Unset, tools/torch_source.py chooses them and
# says so in one line: the CPU-only wheel on a machine without an NVIDIA GPU when PyTorch's CPU
# index answers, else PyPI's default wheel (with ~5 GB of CUDA libraries).
TORCH_PIP_ARGS ?=
TORCH_SOURCE = $(if $(TORCH_PIP_ARGS),$(TORCH_PIP_ARGS),$(shell $(PY) tools/torch_source.py))
VENV_SB3 ?= .venv-sb3
VENV_RLLIB ?= .venv-rllib
INTEGRATION_PYTEST := -m pytest -c tests/integrations/pytest.ini -q

# torch and its dependencies (PyPI's wheel brings ~5 GB of CUDA libraries) are installed once,
# into TORCH_LAYER, which every torch virtualenv (.venv-train, .venv-sb3, .venv-rllib) names in
# a .pth file: one copy on disk instead of one per virtualenv, unpacked once. Its folder is
# named by the pin, so a new pin gets a new layer; the three requirements files pin the same
# torch (make_venv refuses one that differs). TORCH_LAYER_PIP_ARGS adds pip options.
TORCH_PIN := $(shell grep -hE '^torch==' examples/requirements-train.txt)
TORCH_LAYER := .torch-$(patsubst torch==%,%,$(TORCH_PIN))
TORCH_LAYER_PIP_ARGS ?= --no-cache-dir

$(TORCH_LAYER)/.installed:
	@rm -rf $(TORCH_LAYER)
	@$(QUIETLY) torch-layer "installing $(TORCH_PIN) and its dependencies into $(TORCH_LAYER)" \
		$(PY) -m pip install -q $(TORCH_LAYER_PIP_ARGS) --target $(TORCH_LAYER) $(TORCH_SOURCE) "$(TORCH_PIN)"
	@touch $@

# $(1): the virtualenv, $(2): its requirements file. torch comes from TORCH_LAYER (pip finds it
# there and installs only the rest).
# A file that pins box2d-py (an sdist that runs swig while it builds) gets it built first,
# without build isolation, with its swig on PATH (pip's isolated build cannot run that swig).
define make_venv
	@pin=$$(grep -E "^torch==" $(2)); [ "$$pin" = "$(TORCH_PIN)" ] || { \
		echo "!! $(2) pins '$$pin', but the torch layer is $(TORCH_PIN) (examples/requirements-train.txt): pin the same torch" >&2; exit 1; }
	@rm -rf $(1)
	@$(QUIETLY) $(patsubst .%,%,$(notdir $(1))) "creating $(1) from $(2)" sh -c '$(PY) -m venv $(1) && \
		$(1)/bin/python -m pip install -q --upgrade pip && \
		echo $(abspath $(TORCH_LAYER)) > "$$($(1)/bin/python -c "import sysconfig; print(sysconfig.get_paths()[\"purelib\"])")/reinfors-torch-layer.pth" && \
		$(call box2d_py,$(1),$(2)) \
		$(1)/bin/python -m pip install -q -r $(2)'
	@touch $(1)/.requirements-installed
endef

# The shell steps (ending in &&) that build box2d-py into virtualenv $(1) when requirements
# file $(2) pins it: swig, setuptools and wheel from the same file, then box2d-py.
define box2d_py
if grep -qE "^box2d-py==" $(2); then \
	$(1)/bin/python -m pip install -q $$(grep -E "^(swig|setuptools|wheel)==" $(2)) && \
	PATH=$(abspath $(1))/bin:$$PATH $(1)/bin/python -m pip install -q --no-build-isolation \
		$$(grep -E "^box2d-py==" $(2)); fi &&
endef

$(VENV_SB3)/.requirements-installed: tests/integrations/requirements-sb3.txt $(TORCH_LAYER)/.installed
	$(call make_venv,$(VENV_SB3),$<)

$(VENV_RLLIB)/.requirements-installed: tests/integrations/requirements-rllib.txt $(TORCH_LAYER)/.installed
	$(call make_venv,$(VENV_RLLIB),$<)

test-integrations-sb3: setup $(VENV_SB3)/.requirements-installed
	@VIRTUAL_ENV=$(abspath $(VENV_SB3)) $(QUIETLY) develop-sb3 "installing the package into $(VENV_SB3)" \
		$(BIN)/maturin develop --release --quiet
	@echo "== the SB3, TorchRL, CleanRL/skrl, evaluation and docs' block suites (2 workers)"
	@$(VENV_SB3)/bin/python $(INTEGRATION_PYTEST) -n 2 tests/integrations/test_sb3.py \
		tests/integrations/test_torchrl.py tests/integrations/test_cleanrl_skrl.py \
		tests/integrations/test_evaluate.py tests/integrations/test_help.py \
		tests/integrations/test_train.py tests/integrations/test_bench_training.py \
		tests/integrations/test_lap_stats.py tests/integrations/test_noise_cost.py \
		tests/integrations/test_vector_wrappers_torch.py tests/integrations/test_allocator.py \
		tests/integrations/test_pooled_frames.py tests/integrations/test_doc_snippets.py

test-integrations-rllib: setup $(VENV_RLLIB)/.requirements-installed
	@VIRTUAL_ENV=$(abspath $(VENV_RLLIB)) $(QUIETLY) develop-rllib \
		"installing the package into $(VENV_RLLIB)" $(BIN)/maturin develop --release --quiet
	@echo "== the RLlib suite and the docs' RLlib blocks"
	@$(VENV_RLLIB)/bin/python $(INTEGRATION_PYTEST) tests/integrations/test_rllib.py \
		tests/integrations/test_doc_snippets.py

# The torch layer first, then both virtualenvs side by side, then the suites one after the
# other, each using both cores its own way.
test-integrations:
	@$(MAKE) --no-print-directory $(TORCH_LAYER)/.installed
	@$(MAKE) --no-print-directory -j2 -Oline integration-venvs
	@$(MAKE) --no-print-directory test-integrations-sb3
	@$(MAKE) --no-print-directory test-integrations-rllib

integration-venvs: $(VENV_SB3)/.requirements-installed $(VENV_RLLIB)/.requirements-installed

# Each Gymnasium that pyproject.toml declares (gymnasium>=1.1), in its own virtualenv with
# gymnasium[box2d]==VERSION and tests/versions/requirements.txt: 1.1.1 (box2d-py, pygame),
# 1.2.2 (RLlib's pin; the same), 1.3.0 (box2d 2.3.10, pygame-ce, the float score) and 1.4.0.
# Each lane runs the versions, vector-wrapper, drop-in and parity suites against that version's
# CarRacing-v3 and AsyncVectorEnv. The package goes in as `make setup` built it: a .pth naming
# this checkout (as `maturin develop` does for this mixed project), so the lanes share one build
# and can run side by side. REINFORS_GYM_EXPECT_GYMNASIUM makes the suite check the version.
GYM_VERSIONS := 1.1.1 1.2.2 1.3.0 1.4.0
GYM_SUITE := tests/test_versions.py tests/test_vector_wrappers.py tests/test_dropin.py \
	tests/test_vector_dropin.py tests/parity/test_parity_fast.py
GYM_REQUIREMENTS := tests/versions/requirements.txt

.venv-gym-%/.requirements-installed: $(GYM_REQUIREMENTS)
	@rm -rf .venv-gym-$*
	@$(QUIETLY) venv-gym-$* "creating .venv-gym-$* (gymnasium[box2d]==$*)" sh -c \
		'$(PY) -m venv .venv-gym-$* && .venv-gym-$*/bin/python -m pip install -q --upgrade pip && \
		.venv-gym-$*/bin/python -m pip install -q -r $(GYM_REQUIREMENTS) && \
		PATH=$(abspath .venv-gym-$*)/bin:$$PATH .venv-gym-$*/bin/python -m pip install -q \
			--no-build-isolation "gymnasium[box2d]==$*" && \
		.venv-gym-$*/bin/python -c "import sysconfig; print(sysconfig.get_paths()[\"purelib\"])" \
			| xargs -I{} sh -c "echo $(CURDIR) > {}/reinfors_gym.pth"'
	@touch $@

gymnasium-venvs: $(foreach v,$(GYM_VERSIONS),.venv-gym-$(v)/.requirements-installed)

test-gymnasium-%: setup .venv-gym-%/.requirements-installed
	@$(QUIETLY) gym-$* "Gymnasium $*: versions, vector wrappers, drop-in, parity (.venv-gym-$*)" \
		env REINFORS_GYM_EXPECT_GYMNASIUM=$* .venv-gym-$*/bin/python -m pytest -q \
		-p no:cacheprovider --durations=8 $(GYM_SUITE)
	@grep -E "(passed|failed)" out/logs/gym-$*.log | tail -1 | sed 's/^/   Gymnasium $*: /'

# The virtualenvs side by side (two builds of box2d-py are most of it), then the four lanes,
# two at a time.
test-gymnasiums: setup
	@$(MAKE) --no-print-directory -j2 -Oline gymnasium-venvs
	@$(MAKE) --no-print-directory -j2 -Oline $(foreach v,$(GYM_VERSIONS),test-gymnasium-$(v))

# The abi3 wheel (make wheel) on the other Pythons we declare (requires-python >= 3.10), from
# pyenv's interpreters ($(PYENV_ROOT)/versions/X.Y.*): tools/check_python.py installs the wheel
# alone into a fresh virtualenv, checks that nothing there is box2d-py, Box2D or pygame (nor
# imported by the package), then adds the test requirements and runs the quick suite against
# the installed wheel. A missing interpreter fails.
PYTHONS := 3.10 3.12 3.13
PYENV_ROOT ?= $(HOME)/.pyenv
QUICK_SUITE := tests/test_env_api.py tests/test_vector.py tests/test_versions.py \
	tests/test_dropin.py tests/parity/test_parity_fast.py
pyenv_python = $(lastword $(sort $(wildcard $(PYENV_ROOT)/versions/$(1).*/bin/python$(1))))

test-python-%: $(BIN)/python
	@test -n "$(call pyenv_python,$*)" || \
		{ echo "!! no Python $* under $(PYENV_ROOT)/versions (pyenv install $*)"; exit 1; }
	@$(QUIETLY) py-$* "Python $*: the wheel alone, then the quick suite (.venv-py$*)" \
		$(BIN)/python tools/check_python.py --python $(call pyenv_python,$*) \
		--venv .venv-py$* --requirements tests/wheel/requirements-quick.txt $(QUICK_SUITE)
	@grep -E "(passed|failed)" out/logs/py-$*.log | tail -1 | sed 's/^/   Python $*: /'

# The wheel in dist/ (make wheel or make test-wheel built it; `make wheel` again after a
# change), or a new one.
dist-wheel: $(BIN)/python
	@ls dist/reinfors_gym-*.whl >/dev/null 2>&1 || $(MAKE) --no-print-directory wheel

test-pythons: dist-wheel
	@$(MAKE) --no-print-directory -j2 -Oline $(foreach v,$(PYTHONS),test-python-$(v))

# One command, from scratch: `make train SEED=1 OUT=out/train-1` runs examples/train.py's recipe
# (its defaults; TRAIN_ARGS adds options), exports OUT/policy.pt2, evaluates it on Gymnasium's
# CarRacing-v3 and on ours and writes OUT/run.json. Its virtualenv (.venv-train) is (re)created
# when examples/requirements-train.txt changes, with the torch wheel TORCH_SOURCE chooses.
SEED ?= 1
OUT ?= out/train-$(SEED)
TRAIN_ARGS ?=
VENV_TRAIN ?= .venv-train

$(VENV_TRAIN)/.requirements-installed: examples/requirements-train.txt $(TORCH_LAYER)/.installed
	$(call make_venv,$(VENV_TRAIN),$<)

# The set-up's seconds (a fresh clone's build and virtualenvs, or a quick check once done) go
# into run.json beside the training's and the evaluation's.
train:
	@start=$$(date +%s); $(MAKE) --no-print-directory train-setup && \
	echo "== training (examples/train.py --seed $(SEED) --out $(OUT))" && \
	$(VENV_TRAIN)/bin/python examples/train.py --seed $(SEED) --out $(OUT) \
		--setup-seconds $$(( $$(date +%s) - start )) $(TRAIN_ARGS)

train-setup: setup $(VENV_TRAIN)/.requirements-installed
	@VIRTUAL_ENV=$(abspath $(VENV_TRAIN)) $(QUIETLY) develop-train \
		"installing the package into $(VENV_TRAIN)" $(BIN)/maturin develop --release --quiet

# PPO("CnnPolicy") rollout collection on make_sb3_vec_env(8) beside SubprocVecEnv(CarRacing-v3).
bench-sb3: test-integrations-sb3
	@echo "== SB3 PPO rollouts: make_sb3_vec_env(8) beside SubprocVecEnv (bench/bench_sb3.py)"
	@$(VENV_SB3)/bin/python bench/bench_sb3.py

# The PPO recipe of docs/training.md end to end: the streaming collector beside AsyncVectorEnv.
bench-training: test-integrations-sb3
	@echo "== examples/train.py's recipe end to end beside AsyncVectorEnv and EnvPool (bench/bench_training.py)"
	@$(VENV_SB3)/bin/python bench/bench_training.py --updates 3 --trials 3

bench: setup
	@echo "== single env beside Gymnasium (bench/bench_single.py)"
	@$(BIN)/python bench/bench_single.py

# Asynchronous stepping's acceptance runs (~20 min on 2 cores; on a quiet machine, since the
# figures go into docs/): the policy loops (a device-like policy, a Nature CNN on 1 torch thread
# and on every core, each beside the policy alone, the step alone, EnvPool's async loop) into
# docs/async_loops.json, the loop's phase profile into docs/policy_loop_profile.json, the docs'
# figures regenerated from both; then this build beside AB_BASE's on the tight loops and the
# device-like loops (bench/bench_ab.py, interleaved), printed and kept in out/bench_ab.txt.
# AB_BASE's package is built once into out/ab-$(AB_BASE) (its own target directory).
AB_BASE ?= main
AB_DIR := out/ab-$(AB_BASE)

$(AB_DIR)/reinfors_gym/_core.abi3.so:
	@rm -rf $(AB_DIR) out/ab-wheel && mkdir -p $(AB_DIR)
	@git archive $(AB_BASE) reinfors_gym | tar -x -C $(AB_DIR)
	@mkdir -p out/ab-src && git archive $(AB_BASE) | tar -x -C out/ab-src
	@$(QUIETLY) ab-build "building $(AB_BASE)'s extension into $(AB_DIR)" sh -c 'cd out/ab-src && \
		CARGO_TARGET_DIR=$(abspath target/ab) $(BIN)/maturin build --release --quiet \
		-o $(abspath out/ab-wheel)'
	@$(BIN)/python -c "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); \
		open(sys.argv[2], 'wb').write(z.read(next(n for n in z.namelist() if n.endswith('.so'))))" \
		out/ab-wheel/*.whl $@
	@rm -rf out/ab-src out/ab-wheel

bench-async: setup $(VENV_SB3)/.requirements-installed $(AB_DIR)/reinfors_gym/_core.abi3.so
	@VIRTUAL_ENV=$(abspath $(VENV_SB3)) $(QUIETLY) develop-sb3 "installing the package into $(VENV_SB3)" \
		$(BIN)/maturin develop --release --quiet
	@echo "== the policy loops (reinfors-gym bench --loops --out docs, ~11 min)"
	@$(VENV_SB3)/bin/reinfors-gym bench --loops --out docs
	@echo "== the loop's phases (bench/profile_policy_loop.py, ~2 min)"
	@$(VENV_SB3)/bin/python bench/profile_policy_loop.py --json docs/policy_loop_profile.json
	@echo "== the figures quoted in README.md and docs/ (tools/gen_figures.py)"
	@$(BIN)/python tools/gen_figures.py
	@echo "== this build beside $(AB_BASE)'s (bench/bench_ab.py, ~7 min; also out/bench_ab.txt)"
	@$(BIN)/python bench/bench_ab.py --a $(AB_DIR) --b . --trials 5 --seconds 3 \
		--only "single;vector;async;sync" | tee out/bench_ab.txt

# This build beside AB_BASE's by instructions per env step (valgrind's callgrind; ~7 min):
# a count a noisy machine does not move, for a change that must not slow the tight loops.
bench-ab-instructions: setup $(AB_DIR)/reinfors_gym/_core.abi3.so
	@$(BIN)/python bench/ab_instructions.py --a $(AB_DIR) --b .

# The full side-by-side suite (>= 100 seeds per family, full episodes; ~15 min on 2 cores),
# then docs/parity.md from its results, then the criteria check.
parity: setup
	@echo "== the side-by-side suite, 100 seeds per family (progress bar below)"
	@$(BIN)/python -m reinfors_gym.parity --seeds 100 --out out/parity/results.json
	@echo "== docs/parity.md, docs/parity_summary.json and the figures quoted from them"
	@$(BIN)/python tools/gen_parity_doc.py out/parity/results.json docs/parity.md
	@echo "== the criteria check (tests/parity, -m slow)"
	@$(BIN)/python -m pytest -q -m slow tests/parity

# The documentation site: its own virtualenv with the toolchain pinned in docs/requirements.txt
# (reinstalled when that file changes), so the test venv never sees mkdocs' dependencies.
DOCS_VENV ?= .venv-docs
DOCS_BIN := $(abspath $(DOCS_VENV))/bin

$(DOCS_BIN)/.installed: docs/requirements.txt
	@$(QUIETLY) docs-venv "creating $(DOCS_VENV) from docs/requirements.txt" sh -c \
		'$(PY) -m venv $(DOCS_VENV) && $(DOCS_BIN)/python -m pip install -q --upgrade pip && \
		$(DOCS_BIN)/python -m pip install -q -r docs/requirements.txt'
	@touch $@

# --strict: a broken link, a missing page in the nav or a docstring griffe cannot read fails.
docs: $(DOCS_BIN)/.installed
	@NO_MKDOCS_2_WARNING=1 $(QUIETLY) mkdocs "mkdocs build --strict (into site/)" \
		$(DOCS_BIN)/mkdocs build --strict

# Every page in headless Chromium (Debian's chromium and chromium-driver; .ci/run installs them).
test-docs: docs
	@echo "== every page in headless Chromium (tests/docs)"
	@$(DOCS_BIN)/python -m pytest -q -p no:cacheprovider tests/docs

# An abi3 wheel linked by zig against glibc 2.17 (manylinux2014), and the sdist. Pinned tools:
# ziglang is the zig that maturin --zig links with; auditwheel names the policy.
WHEEL_TOOLS := "ziglang==0.17.0" "auditwheel==6.8.2"

wheel: $(BIN)/python
	@$(QUIETLY) wheel-tools "installing maturin, zig and auditwheel" \
		$(BIN)/python -m pip install -q $(MATURIN) $(WHEEL_TOOLS)
	@rm -rf dist
	@$(QUIETLY) wheel "building the manylinux2014 wheel (release, zig)" \
		$(BIN)/maturin build --release --quiet --zig --compatibility manylinux2014 --out dist
	@$(QUIETLY) sdist "building the sdist" $(BIN)/maturin sdist --out dist
	@$(BIN)/auditwheel show dist/*.whl

# Tags, policy and sdist checked; the wheel installed into fresh venvs (newest and oldest allowed
# dependencies) with no cargo/rustc on PATH, and smoke-tested there.
test-wheel: wheel
	@echo "== installing the wheel where no Rust is, and smoke-testing it (tools/check_wheel.py)"
	@$(BIN)/python tools/check_wheel.py

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
	@$(QUIETLY) aarch64-target "rustup target add $(AARCH64)" rustup target add $(AARCH64)
	@$(QUIETLY) aarch64-clippy "cargo clippy --target $(AARCH64)" \
		cargo clippy --target $(AARCH64) --all-targets -- -D warnings
	@$(QUIETLY) aarch64-clippy-python "cargo clippy --target $(AARCH64) --features python" \
		cargo clippy --target $(AARCH64) --all-targets --features python -- -D warnings
	@$(QUIETLY) aarch64-build "building the Rust tests for $(AARCH64) (test profile)" \
		env $(AARCH64_ENV) cargo test --no-run --target $(AARCH64)
	@echo "== cargo test under qemu-aarch64"
	@$(AARCH64_ENV) cargo test -q --target $(AARCH64)
	@echo "== frame hashes on $(AARCH64) against the x86-64 record:"
	@$(AARCH64_ENV) cargo test -q --target $(AARCH64) --test frame_hash -- --nocapture

clean:
	rm -rf $(VENV) $(DOCS_VENV) $(VENV_SB3) $(VENV_RLLIB) $(VENV_TRAIN) .venv-wheel-test target \
		site dist .venv-gym-* .venv-py* .torch-*
