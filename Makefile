# One-command gates, used by people and CI alike.
#   make demo   set up, then drive the env with random actions (steps/s beside Gymnasium, PNG strip)
#   make test   set up, then lint (Rust + Python) and run every test (cargo + pytest)
#   make test-integrations   the SB3 / TorchRL / skrl / CleanRL and RLlib suites, each in its
#               own virtualenv (.venv-sb3, .venv-rllib: RLlib pins gymnasium==1.2.2)
# Set-up is a local virtualenv (.venv) with the extension built in release mode by maturin.

PY ?= python3
VENV ?= .venv
BIN := $(abspath $(VENV))/bin
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(BIN):$(PATH)
# Headless pygame (Gymnasium's reference renderer and our human mode) in CI and terminals.
export SDL_VIDEODRIVER ?= dummy
export SDL_AUDIODRIVER ?= dummy

.PHONY: setup build demo test test-rust test-python lint lint-rust lint-python bench parity clean \
	test-integrations test-integrations-sb3 test-integrations-rllib bench-sb3

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
		tests/integrations/test_torchrl.py tests/integrations/test_cleanrl_skrl.py

test-integrations-rllib: setup $(VENV_RLLIB)/.requirements-installed
	VIRTUAL_ENV=$(abspath $(VENV_RLLIB)) $(BIN)/maturin develop --release --quiet
	$(VENV_RLLIB)/bin/python $(INTEGRATION_PYTEST) tests/integrations/test_rllib.py

test-integrations: test-integrations-sb3 test-integrations-rllib

# PPO("CnnPolicy") rollout collection on make_sb3_vec_env(8) beside SubprocVecEnv(CarRacing-v3).
bench-sb3: test-integrations-sb3
	$(VENV_SB3)/bin/python bench/bench_sb3.py

bench: setup
	$(BIN)/python bench/bench_single.py

# The full side-by-side suite (>= 100 seeds per family, full episodes; ~15 min on 2 cores),
# then docs/parity.md from its results, then the criteria check.
parity: setup
	$(BIN)/python -m reinfors_gym.parity --seeds 100 --out out/parity/results.json
	$(BIN)/python tools/gen_parity_doc.py out/parity/results.json docs/parity.md
	$(BIN)/python -m pytest -q -m slow tests/parity

clean:
	rm -rf $(VENV) $(VENV_SB3) $(VENV_RLLIB) target
