"""Checks what `make wheel` put in dist/, then installs the wheel where no Rust toolchain is.

    python tools/check_wheel.py [--dist dist] [--venv .venv-wheel-test] [--deps "REQ ..." ...]

1. Exactly one reinfors_gym wheel, and the sdist of the same version, are in `--dist`.
2. The wheel's tags (its WHEEL file) are abi3 and manylinux; `auditwheel show` (from the
   calling environment) names the manylinux policy the wheel's symbols allow, and that policy
   must be one of the tags.
3. The sdist holds what a source build needs (Cargo.toml, Cargo.lock, rust/src, the package).
4. For each `--deps` set (default: the newest dependencies, then the oldest that the wheel's
   metadata allows): a new virtualenv, the wheel and those requirements installed from binaries only,
   with a PATH holding no cargo or rustc, and `tests/wheel/smoke_installed.py` run there from
   a scratch folder, then `tests/wheel/no_box2d_no_pygame.py` (no box2d-py, Box2D or pygame
   installed, imported or needed).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

from fresh_venv import fresh_venv

ROOT = Path(__file__).resolve().parents[1]
SMOKE = ROOT / "tests" / "wheel" / "smoke_installed.py"
# Nothing in the install path needs box2d-py or pygame (both scripts run in each venv).
NO_BOX2D = ROOT / "tests" / "wheel" / "no_box2d_no_pygame.py"
SDIST_NEEDS = (
    "pyproject.toml",
    "Cargo.toml",
    "Cargo.lock",
    "rust/src/lib.rs",
    "rust/src/py/mod.rs",
    "reinfors_gym/__init__.py",
    "reinfors_gym/_core.pyi",
    "reinfors_gym/py.typed",
)


def fail(msg: str) -> None:
    print(f"check_wheel: FAILED: {msg}", file=sys.stderr)
    sys.exit(1)


def find_artifacts(dist: Path) -> tuple[Path, Path]:
    wheels = sorted(dist.glob("reinfors_gym-*.whl"))
    if len(wheels) != 1:
        fail(f"expected one reinfors_gym wheel in {dist}, found {wheels}")
    version = wheels[0].name.split("-")[1]
    sdists = sorted(dist.glob("reinfors_gym-*.tar.gz"))
    if [s.name for s in sdists] != [f"reinfors_gym-{version}.tar.gz"]:
        fail(f"expected the sdist of {version} beside the wheel, found {sdists}")
    return wheels[0], sdists[0]


def wheel_metadata(wheel: Path, name: str) -> str:
    with zipfile.ZipFile(wheel) as z:
        member = next(n for n in z.namelist() if n.endswith(f".dist-info/{name}"))
        return z.read(member).decode()


def wheel_tags(wheel: Path) -> list[str]:
    text = wheel_metadata(wheel, "WHEEL")
    return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Tag:")]


def auditwheel_policy(wheel: Path) -> str:
    exe = shutil.which("auditwheel") or fail("auditwheel is not installed (make wheel does it)")
    out = subprocess.run([exe, "show", str(wheel)], capture_output=True, text=True, check=True)
    print(out.stdout.strip())
    found = re.search(r'platform tag:\s*"(manylinux_[0-9]+_[0-9]+_\w+)"', out.stdout)
    if not found:
        fail("auditwheel show named no manylinux policy")
    return found.group(1)


def check_sdist(sdist: Path) -> None:
    with tarfile.open(sdist) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    missing = [n for n in SDIST_NEEDS if n not in names]
    if missing:
        fail(f"{sdist.name} lacks {missing}")
    stray = sorted({n.split("/")[0] for n in names if n.startswith((".venv", "target/", "site/"))})
    if stray:
        fail(f"{sdist.name} holds build or venv folders: {stray}")
    print(f"sdist: {sdist.name}, {len(names)} files, {sdist.stat().st_size / 1e6:.1f} MB")


def dependency_sets(wheel: Path) -> list[list[str]]:
    """No pins (what `pip install reinfors-gym` gets today), then each `name>=X.Y` bound of
    the wheel's own dependencies as `name~=X.Y.0`: the lowest minor series allowed, at its
    latest patch (early patches of a series may have no wheel for this Python)."""
    deps = [
        line.split(":", 1)[1].strip()
        for line in wheel_metadata(wheel, "METADATA").splitlines()
        if line.startswith("Requires-Dist:") and ";" not in line  # extras carry a marker
    ]
    if not deps or not all(re.fullmatch(r"[\w-]+>=\d+\.\d+", d) for d in deps):
        fail(f"expected name>=X.Y dependencies, got {deps}")
    return [[], [d.replace(">=", "~=") + ".0" for d in deps]]


def smoke(wheel: Path, venv: Path, deps: list[str]) -> None:
    print(f"\n== fresh venv {venv}, dependencies: {' '.join(deps) or 'newest'}")
    py, pip, env = fresh_venv(sys.executable, venv)
    # Binaries only: a source build of anything would need a toolchain this PATH lacks.
    subprocess.run([*pip, "--only-binary", ":all:", str(wheel), *deps], env=env, check=True)
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run([py, str(SMOKE)], env=env, cwd=scratch, check=True)
        subprocess.run([py, str(NO_BOX2D)], env=env, cwd=scratch, check=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dist", type=Path, default=ROOT / "dist")
    ap.add_argument("--venv", type=Path, default=ROOT / ".venv-wheel-test")
    ap.add_argument("--deps", action="append", help="requirements, space-separated (repeatable)")
    args = ap.parse_args()

    wheel, sdist = find_artifacts(args.dist)
    tags = wheel_tags(wheel)
    print(f"wheel: {wheel.name} ({wheel.stat().st_size / 1e6:.1f} MB)")
    print(f"wheel tags (WHEEL file): {', '.join(tags)}")
    if not all(t.startswith("cp310-abi3-") for t in tags):
        fail(f"not an abi3 wheel for CPython >= 3.10: {tags}")
    if not any("manylinux" in t for t in tags):
        fail(f"no manylinux tag: {tags}")
    policy = auditwheel_policy(wheel)
    print(f"manylinux policy (auditwheel show): {policy}")
    if not any(t.endswith(policy) for t in tags):
        fail(f"the wheel's tags {tags} do not include the policy {policy}")
    check_sdist(sdist)
    sets = [d.split() for d in args.deps] if args.deps else dependency_sets(wheel)
    for deps in sets:
        smoke(wheel, args.venv, deps)
    print("\ncheck_wheel: passed")


if __name__ == "__main__":
    main()
