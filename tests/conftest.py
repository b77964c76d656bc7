"""Shared fixtures: headless pygame, and Gymnasium's reference CarRacing-v3 side by side."""

from __future__ import annotations

import os
import warnings

# Gymnasium's reference env and our human mode use pygame; CI has no display or audio.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pytest  # noqa: E402

if os.environ.get("REINFORS_GYM_EXPECT_INSTALLED") == "1":
    # tools/check_python.py runs the suite against an installed wheel: make sure that is what
    # `import reinfors_gym` finds, not this checkout's source folder.
    import sysconfig
    from pathlib import Path

    import reinfors_gym

    _site = Path(sysconfig.get_paths()["platlib"]).resolve()
    _where = Path(reinfors_gym.__file__).resolve()
    assert _site in _where.parents, f"imported {_where}, not the wheel installed in {_site}"

BOX2D_HINT = "the side-by-side tests need gymnasium[box2d]: pip install -e '.[test]'"


@pytest.fixture(scope="session")
def gym_car_racing():
    """A factory of Gymnasium's own (unwrapped) CarRacing, the behaviour reference."""
    # A declared test dependency: a broken install must fail, not turn into green skips.
    try:
        # As importorskip did: SWIG's import-time DeprecationWarnings, errors under this
        # suite's filterwarnings, crash the module's initialisation.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import Box2D  # noqa: F401
    except ImportError as e:
        pytest.fail(f"Box2D does not import ({e}); {BOX2D_HINT}", pytrace=False)
    from gymnasium.envs.box2d.car_racing import CarRacing

    envs = []

    def make(**kwargs):
        env = CarRacing(**kwargs)
        envs.append(env)
        return env

    yield make
    for env in envs:
        env.close()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A skipped test fails the run: every test dependency is declared and installed by
    `make setup`, so a skip means a broken install (or a test that never runs), not a pass.
    REINFORS_GYM_ALLOW_SKIPS=1 accepts skips, e.g. on a platform without fork()."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter is not None else []
    if skipped and exitstatus == 0 and os.environ.get("REINFORS_GYM_ALLOW_SKIPS") != "1":
        names = ", ".join(report.nodeid for report in skipped[:5])
        reporter.write_line(f"FAILED: {len(skipped)} test(s) skipped ({names}); see conftest.py")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
