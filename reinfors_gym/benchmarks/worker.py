"""One measurement in a fresh interpreter; prints one JSON line as its last output line.

    python -m reinfors_gym.benchmarks.worker KIND '{"variant": "ours-gym", "seconds": 5, ...}'

The line is the measurement's numbers, or ``{"skipped": reason}`` when the system is not
installed or cannot run here, or ``{"error": message}`` when it failed.
"""

from __future__ import annotations

import json
import os
import sys


def run(kind: str, params: dict) -> dict:
    from .systems import KINDS, Skip

    try:
        return KINDS[kind](**params)
    except Skip as e:
        return {"skipped": str(e)}
    except ImportError as e:
        return {"skipped": f"not installed ({e.name or e})"}
    except Exception as e:  # noqa: BLE001 - reported, never raised: a failing system is skipped
        return {"error": f"{type(e).__name__}: {e}"}


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        sys.exit("usage: python -m reinfors_gym.benchmarks.worker KIND JSON_PARAMS")
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    out = run(args[0], json.loads(args[1]))
    sys.stdout.flush()
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
