"""One source per figure: the numbers README.md and docs/ quote from measurement files.

tools/gen_figures.py computes each quoted figure from docs/benchmarks.json or
docs/parity_summary.json and writes it between `<!-- gen:NAME -->` and `<!-- /gen -->`. These
tests fail when a region differs from what its source gives, and when a figure's number is
written by hand anywhere else in README.md or docs/ (a second copy that would go stale).
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("gen_figures", ROOT / "tools" / "gen_figures.py")
assert _spec and _spec.loader
gen_figures = importlib.util.module_from_spec(_spec)
sys.modules["gen_figures"] = gen_figures
_spec.loader.exec_module(gen_figures)

#: Pages that may hold their own numbers: the two generated from the measurement files whole,
#: and the changelog and the earlier training runs, whose figures are dated records of past runs.
OWN_NUMBERS = {
    *gen_figures.GENERATED_PAGES,
    ROOT / "docs" / "changelog.md",
    ROOT / "docs" / "training_history.md",
}
#: A number or a range of numbers, perhaps a ratio: "36,142", "0.21", "3.6×", "0.87–0.92×".
NUMBER = re.compile(r"\d+(?:[.,]\d+)*(?:–\d+(?:[.,]\d+)*)?×?")
#: Numbers in the figures' fixed wording, not measured: the 96×96 frame, 1,024 envs, the
#: recipe's batch of 2,048 decisions.
WORDING = {"96×", "1,024", "2,048"}
#: A page's own measurement that equals a figure's number by chance: (page, number).
COINCIDENCES = {
    ("docs/soak.md", "10.2"),  # the soak's memory growth, not seed 1's sampled 95% interval
}


DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def numbers_in(text: str) -> list[str]:
    """The distinctive numbers of `text` (dates are not figures)."""
    return [t for t in NUMBER.findall(DATE.sub("", text)) if t not in WORDING and distinctive(t)]


def distinctive(token: str) -> bool:
    """A ratio, a range, a decimal of three or more significant digits or an integer of four or
    more: "0.6", "2" or "203" alone could be anything (a three-digit count in another page's own
    table), "0.79×", "0.023–0.6", "0.556" or "36,142" is a quoted measurement."""
    digits = re.sub(r"\D", "", token).lstrip("0")
    if token.endswith("×") or "–" in token:
        return True
    return len(digits) >= (3 if "." in token else 4)


def figures() -> dict[str, str]:
    return {name: make() for name, make in gen_figures.FIGURES.items()}


def measured_numbers() -> dict[str, str]:
    """Each number the figures print, mapped to the figure it comes from."""
    out: dict[str, str] = {}
    for name, text in figures().items():
        for token in numbers_in(text):
            out.setdefault(token, name)
    return out


def test_every_region_equals_its_source() -> None:
    assert gen_figures.main(["--check"]) == 0, "run: python tools/gen_figures.py"


def test_every_figure_is_used_and_regions_are_known() -> None:
    used: set[str] = set()
    for page in gen_figures.PAGES:
        used |= {m.group(1) for m in gen_figures.REGION.finditer(page.read_text())}
    assert used == set(gen_figures.FIGURES)


def test_regions_follow_the_measurement_file(tmp_path: Path) -> None:
    # The figures are computed, not stored: a different measurement gives different text.
    summary = json.loads(gen_figures.PARITY.read_text())
    summary["frame_mad_agreeing"]["max"] = 1.25
    assert "–1.2 " in gen_figures.frame_mad(summary)
    page = "a <!-- gen:frame-mad -->0.1–0.4<!-- /gen --> b"
    assert (
        gen_figures.render(page, {"frame-mad": "X"}) == "a <!-- gen:frame-mad -->X<!-- /gen --> b"
    )
    with pytest.raises(KeyError, match="unknown generated region"):
        gen_figures.render("<!-- gen:nope -->1<!-- /gen -->", {})


def test_no_figure_is_copied_by_hand() -> None:
    numbers = measured_numbers()
    # The check sees the figures: e.g. the single-env rate the README quotes.
    bench = gen_figures.Bench(json.loads(gen_figures.BENCH.read_text()))
    assert f"{bench.median(gen_figures.GYM):,.0f}" in numbers
    copies = []
    for page in gen_figures.PAGES:
        if page in OWN_NUMBERS:
            continue
        outside = gen_figures.REGION.sub("", page.read_text())
        for line in outside.splitlines():
            for token in numbers_in(line):
                if token in numbers and (str(page.relative_to(ROOT)), token) not in COINCIDENCES:
                    copies.append(
                        f"{page.relative_to(ROOT)}: '{token}' ({numbers[token]}) in: {line.strip()}"
                    )
    assert not copies, "figures written by hand outside generated regions:\n" + "\n".join(copies)
