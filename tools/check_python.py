"""Installs the abi3 wheel (`make wheel`, in dist/) on another Python and runs the quick suite.

    python tools/check_python.py --python PATH [--venv DIR] [--requirements FILE] TESTS...

1. A fresh virtualenv from the interpreter at `--python`, the wheel installed alone (binaries
   only, with its own dependencies), no Rust toolchain on PATH; `tests/wheel/smoke_installed.py`
   and `tests/wheel/no_box2d_no_pygame.py` run there from a scratch folder.
2. `--requirements` added (Gymnasium's CarRacing-v3 for the side-by-side tests, pytest), then
   pytest on TESTS from the checkout with REINFORS_GYM_EXPECT_INSTALLED=1, so tests/conftest.py
   checks that the package imported is the installed wheel, not the source folder.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from fresh_venv import fresh_venv

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = (ROOT / "tests/wheel/smoke_installed.py", ROOT / "tests/wheel/no_box2d_no_pygame.py")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", required=True, help="the interpreter to test")
    ap.add_argument("--dist", type=Path, default=ROOT / "dist")
    ap.add_argument("--venv", type=Path, required=True)
    ap.add_argument("--requirements", type=Path, required=True)
    ap.add_argument("tests", nargs="+")
    args = ap.parse_args()

    wheels = sorted(args.dist.glob("reinfors_gym-*.whl"))
    if len(wheels) != 1:
        sys.exit(f"check_python: expected one wheel in {args.dist} (make wheel), got {wheels}")
    venv = args.venv.resolve()
    py, pip, env = fresh_venv(args.python, venv)
    version = subprocess.run(
        [py, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True, text=True
    ).stdout.strip()
    print(f"== Python {version} ({args.python}): {wheels[0].name} alone")
    subprocess.run([*pip, "--only-binary", ":all:", str(wheels[0])], env=env, check=True)
    for script in SCRIPTS:
        with tempfile.TemporaryDirectory() as scratch:
            subprocess.run([py, str(script)], env=env, cwd=scratch, check=True)

    print(f"== Python {version}: {args.requirements.name}, then the quick suite")
    subprocess.run(
        [*pip, "--only-binary", ":all:", "-r", str(args.requirements)], env=env, check=True
    )
    env["REINFORS_GYM_EXPECT_INSTALLED"] = "1"
    # The `pytest` script, not `python -m pytest`: the latter would put the checkout (and its
    # source folder of the package) first on sys.path.
    pytest = [str(venv / "bin" / "pytest"), "-q", "-p", "no:cacheprovider", *args.tests]
    result = subprocess.run(pytest, env=env, cwd=ROOT)
    sys.exit(result.returncode)


if __name__ == "__main__":
    main()
