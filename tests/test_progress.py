"""The progress bar of the long commands: drawn on a terminal, silent elsewhere."""

from __future__ import annotations

import io

from reinfors_gym import parity
from reinfors_gym.benchmarks import harness
from reinfors_gym.progress import ProgressBar


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_bar_on_a_terminal_names_the_work_and_the_time_left():
    term = FakeTerminal()
    with ProgressBar(4, "trial", stream=term) as bar:
        assert bar.enabled
        bar.running("single/ours-gym (1/3)")
        bar.advance()
        bar.note("a result line")
    text = term.getvalue()
    assert "single/ours-gym (1/3)" in text
    assert "1/4" in text and "left" in text
    assert "a result line" in text


def test_bar_off_a_terminal_writes_nothing():
    log = io.StringIO()
    with ProgressBar(4, "trial", stream=log) as bar:
        assert not bar.enabled
        bar.running("something")
        bar.advance(2)
        bar.note("a result line")
    assert log.getvalue() == ""


def test_run_plan_counts_every_trial_and_drops_those_of_a_skipped_measurement(monkeypatch):
    monkeypatch.setattr(harness, "missing_requirement", lambda variant: None)

    def worker(kind, params, timeout):
        if params["variant"] == "reinfors":
            return {"error": "RuntimeError: boom"}
        return {"steps_per_s": 1.0}

    config = harness.Config(trials=3, sections=("single",))
    with ProgressBar(0, "trial", stream=FakeTerminal()) as bar:
        harness.run_plan(
            harness.plan(config), 3, progress=None, worker=worker, retry_s=None, bar=bar
        )
        # 5 measurements x 3 trials, less the 2 later trials of the failing one.
        assert bar.total == 13
        assert bar.done == 13


def test_parity_main_counts_episodes_and_stays_quiet_off_a_terminal(monkeypatch, tmp_path, capsys):
    seen = []

    def fake_suite(families, seeds, max_steps, frame_every, workers):
        for f in families:
            for s in seeds:
                seen.append((f, s))
                yield {"family": f, "seed": s}

    monkeypatch.setattr(parity, "run_suite", fake_suite)
    monkeypatch.setattr(parity, "evaluate", lambda records: [])
    lines: list[str] = []
    out = tmp_path / "results.json"
    parity.main(["--seeds", "3", "--out", str(out)], progress=lines.append)
    assert len(seen) == 3 * len(parity.FAMILIES)
    assert lines == [f"wrote {out} ({len(seen)} episodes in 0 s)"]
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""
