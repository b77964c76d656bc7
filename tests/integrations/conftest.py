"""Shared set-up of the integration suites: headless pygame (Gymnasium's reference CarRacing)."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
