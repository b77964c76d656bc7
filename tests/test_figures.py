"""One source per figure: every quantity README.md and docs/ state comes from a record file.

tools/gen_figures.py computes each quoted figure and writes it between `<!-- gen:NAME -->` and
`<!-- /gen -->`. Its sources: docs/benchmarks.json, docs/parity_summary.json,
docs/policy_loop_profile.json, docs/async_loops.json, docs/training_runs.json,
docs/training_variants.json, docs/training_bench.json, docs/training_profile.json, and through
tools/figures_records.py bench/soak_results.json, docs/soak_first_run.json, docs/sb3_rollouts.json,
docs/rllib_cast_cost.json and docs/scene_mad.json. These tests fail when a region differs from what
its source gives, when a figure's number is written by hand anywhere else in README.md or docs/ (a
second copy that would go stale), and when a quantity (a time, a rate, a share, a size, a ratio or a
count of seeds, runs, episodes, trials, variants, cores, points or decisions) stands in the prose
outside a region without `<!-- literal -->` right after it: the mark says the number is a setting, a
limit or a criterion, never a measurement.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))  # gen_figures imports its siblings (figures_records, ...)
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
#: Numbers in the figures' fixed wording, not measured: the 96×96 frame, the 600×400 video
#: frame, the 0–255 scale of a pixel, 1,024 envs, the recipe's batch of 2,048 decisions.
WORDING = {"96×", "600×", "0–255", "1,024", "2,048"}
#: A page's own measurement that equals a figure's number by chance: (page, number).
COINCIDENCES = {
    ("docs/soak.md", "10.2"),  # the soak's memory growth, not seed 1's sampled 95% interval
    # Recipe 10's settings (its table and how they were chosen), which the variants' table
    # prints in each variant's command.
    ("docs/training.md", "0.9925"),
    ("docs/training.md", "0.995"),
    ("docs/training.md", "13.5"),
    # Recipe 11's budget (13.5 minutes or 1.3M decisions) where the pages introduce its runs.
    ("README.md", "13.5"),
    ("docs/index.md", "13.5"),
    ("docs/training.md", "1300000"),
}


DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


#: A version ("1.4.0", "3.11.7": a figure never has two dots) or a commit ("e933090").
VERSION = re.compile(r"\d+\.\d+\.\d+|\b(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")


def numbers_in(text: str) -> list[str]:
    """The distinctive numbers of `text` (dates, versions and commits are not figures)."""
    plain = VERSION.sub("", DATE.sub("", text))
    return [t for t in NUMBER.findall(plain) if t not in WORDING and distinctive(t)]


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


#: A quantity: a number (perhaps "4M" or "540k") and its unit, a time, a rate, a share, a size,
#: a ratio ("12.4×", not the "96×96" of a frame) or a count of what the pages measure.
QUANTITY = re.compile(
    r"(?<![\w.,])\d+(?:[.,]\d+)*[kM]?\s?"
    r"(?:[A-Za-z]+/s|[µnm]?s|seconds?|min|minutes?|h|hours?|%|[kKMG]i?B|×(?!\s?\d)"
    r"|seeds?|runs?|episodes?|trials?|variants?|cores?|points?|decisions?)(?![\w/])"
)
LITERAL = "<!-- literal -->"
#: What is not prose: fenced code, inline code, and HTML comments other than the literal mark
#: (generated regions are blanked first, with the comments that delimit them).
FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.M | re.S)
INLINE_CODE = re.compile(r"(`+)(?!`)(?:(?!\n[ \t]*\n).)+?(?<!`)\1(?!`)", re.S)
COMMENT = re.compile(r"<!--(?! literal -->).*?-->", re.S)


def prose(text: str) -> str:
    """`text` with its generated regions, code and comments blanked (newlines kept, so that
    positions still give line numbers)."""
    for pattern in (gen_figures.REGION, FENCE, INLINE_CODE, COMMENT):
        text = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    return text


def bare_quantities(text: str) -> list[tuple[int, str]]:
    """(line, quantity) for each quantity of `text`'s prose with no literal mark after it."""
    plain = prose(text)
    return [
        (plain.count("\n", 0, m.start()) + 1, m.group(0))
        for m in QUANTITY.finditer(plain)
        if not plain[m.end() :].lstrip(" ").startswith(LITERAL)
    ]


def test_the_quantity_check_sees_bare_numbers_and_honours_the_mark() -> None:
    assert bare_quantities("The run took 28 minutes on the machine.\n") == [(1, "28 minutes")]
    assert bare_quantities(f"The budget is 28 minutes{LITERAL} of training.\n") == []
    assert bare_quantities(f"The budget is 28 minutes {LITERAL} of training.\n") == []
    # The mark covers the quantity it follows, not the next one.
    assert bare_quantities(f"28 minutes{LITERAL} and 3 runs at 5% load\n") == [
        (1, "3 runs"),
        (1, "5%"),
    ]
    assert bare_quantities("a\n| PPO, 5 trials | 3,185 steps/s | 12.4× |\n") == [
        (2, "5 trials"),
        (2, "3,185 steps/s"),
        (2, "12.4×"),
    ]
    assert bare_quantities("about ~5\nGB of libraries, 4M decisions, 0.4–0.5 MiB\n") == [
        (1, "5\nGB"),
        (2, "4M decisions"),
        (2, "0.5 MiB"),
    ]
    not_quantities = (
        "96×96 frames, a 2,048 × 2,048 product, CarRacing-v3, 8 sub-envs, 1.4's rule, 2-core\n"
        "`make train  # 28 minutes`\n"
        "```bash\nsleep 28 s\n```\n"
        "<!-- snippet: 3 runs -->\n"
        "<!-- gen:frame-mad -->took 28 minutes<!-- /gen -->\n"
    )
    assert bare_quantities(not_quantities) == []


def test_every_quantity_is_generated_or_marked_literal() -> None:
    bare = []
    for page in gen_figures.PAGES:
        if page in OWN_NUMBERS:
            continue
        lines = page.read_text().splitlines()
        for line, quantity in bare_quantities(page.read_text()):
            where = f"{page.relative_to(ROOT)}:{line}"
            bare.append(f"{where}: '{quantity}' in: {lines[line - 1].strip()}")
    assert not bare, (
        "quantities outside generated regions: generate a measurement from its record "
        f"(tools/figures_records.py), or mark a setting, limit or criterion with {LITERAL} "
        "right after it:\n" + "\n".join(bare)
    )
