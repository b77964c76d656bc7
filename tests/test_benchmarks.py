"""The benchmark harness without timing anything: statistics, the plan, the JSON schema, the
reports, the doc generator and the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reinfors_gym.benchmarks import harness, report
from reinfors_gym.benchmarks.systems import FAMILIES, VARIANTS

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _all_installed(monkeypatch):
    """Fake workers stand in for every system, installed here or not."""
    monkeypatch.setattr(harness, "missing_requirement", lambda variant: None)


# --------------------------------------------------------------------------- statistics


def test_summarize_median_and_range():
    assert harness.summarize([3.0, 1.0, 2.0]) == {"median": 2.0, "min": 1.0, "max": 3.0, "n": 3}
    assert harness.summarize([4, 1, 2, 3])["median"] == 2.5
    assert harness.summarize([7.0]) == {"median": 7.0, "min": 7.0, "max": 7.0, "n": 1}
    with pytest.raises(ValueError):
        harness.summarize([])


def test_relative_spread_and_ratio():
    assert harness.relative_spread({"median": 10.0, "min": 9.0, "max": 11.0}) == pytest.approx(0.2)
    assert harness.relative_spread({"median": 5.0, "min": 5.0, "max": 5.0}) == 0.0
    # Rates: ours / anchor; costs (time, memory): anchor / ours. Both say "times better".
    assert harness.ratio(100.0, 10.0, higher_is_better=True) == 10.0
    assert harness.ratio(2.0, 20.0, higher_is_better=False) == 10.0
    assert harness.ratio(1.0, 0.0, higher_is_better=True) == float("inf")


def test_alternating_order():
    items = ["a", "b", "c"]
    assert harness.alternating(items, 0) == ["a", "b", "c"]
    assert harness.alternating(items, 1) == ["c", "b", "a"]
    assert harness.alternating(items, 2) == ["a", "b", "c"]
    assert items == ["a", "b", "c"]


# --------------------------------------------------------------------------- plan and running


def test_plan_covers_sections_and_filters_systems():
    full = harness.plan(harness.Config(threads=(1, 2), env_threads=2))
    sections = {m.section for m in full}
    assert sections == set(harness.SECTIONS_ORDER)
    assert {VARIANTS[m.variant].family for m in full} == set(FAMILIES)
    assert [m.params["num_envs"] for m in full if m.section == "num_envs"] == [1, 16, 64, 256, 1024]
    assert len({m.id for m in full}) == len(full)
    policy = [
        (m.kind, m.variant, m.params["threads"], m.params.get("batch_size"))
        for m in full
        if m.section == "policy"
    ]
    cores = harness.usable_cores()
    assert policy == [
        ("policy", "policy-alone", 0, None),
        ("policy", "ours-vector", 0, None),
        ("policy", "ours-vector", 1, None),
        ("policy", "envpool", cores, None),
        ("policy", "gymnasium-async", cores, None),
        ("policy-async", "ours-vector", 0, 8),
        ("policy-async", "envpool", cores, 8),
    ]
    oversub = [m.params["threads"] for m in full if m.section == "oversub"]
    assert oversub == [1, 2, 4, 8, 16, 32, 64]

    ours = harness.plan(harness.Config(systems=("ours",), sections=("single", "threads")))
    assert ours and all(VARIANTS[m.variant].family == "ours" for m in ours)
    assert {m.section for m in ours} == {"single", "threads"}

    with pytest.raises(ValueError, match="unknown systems"):
        harness.Config(systems=("nope",)).resolved()
    with pytest.raises(ValueError, match="unknown sections"):
        harness.Config(sections=("nope",)).resolved()


def _fake_worker(kind, params, timeout):
    """Deterministic numbers by kind; one system fails, as a competitor may."""
    if params["variant"] == "reinfors":
        return {"error": "RuntimeError: boom"}
    base = {"ours": 1000.0, "gymnasium": 100.0, "envpool": 500.0, "reinfors": 200.0}
    family = VARIANTS[params["variant"]].family
    if kind in ("single", "vector"):
        return {"steps_per_s": base[family] * params.get("threads", 1)}
    if kind in ("policy", "policy-async"):
        ceiling = 400.0
        if params["variant"] == "policy-alone":
            return {"steps_per_s": ceiling}
        if kind == "policy-async":
            ceiling *= 1.2
        return {"steps_per_s": ceiling * base[family] / (base[family] + 100.0)}
    if kind == "reset":
        return {"ms_per_reset": 10000.0 / base[family]}
    if kind == "memory":
        return {"mib_per_env": 1000.0 / base[family], "total_mib": 1.0, "buffers_mib": 0.1}
    if kind == "collector":
        return {"rate": base[family] * (0.8 if params["variant"] == "ours-engine" else 1.0)}
    if kind == "overlap":
        return {
            "collect_s": 1.0,
            "train_s": 1.0,
            "sequential_s": 2.0,
            "stream_s": 1.1,
            "stream_over_bound": 1.1,
            "speedup": 2.0 / 1.1,
        }
    raise AssertionError(kind)


def _synthetic_doc(trials: int = 3) -> dict:
    config = harness.Config(trials=trials, threads=(1, 2), env_threads=2).resolved()
    measurements = harness.run_plan(
        harness.plan(config), trials, progress=None, worker=_fake_worker, retry_s=0.0
    )
    rows = [harness._row(m) for m in measurements]
    cfg = {k: list(v) if isinstance(v, tuple) else v for k, v in vars(config).items()}
    return {
        "schema": harness.SCHEMA,
        "created": "2026-11-30T00:00:00+00:00",
        "duration_s": 1.0,
        "command": "reinfors-gym bench --out docs",
        "machine": {"cpu": "Test CPU", "cores": "2", "commit": "abc1234"},
        "load_average": {"before": "0.10 0.10 0.10", "after": "0.20 0.10 0.10"},
        "config": cfg,
        "sections": {k: vars(v) for k, v in harness.SECTIONS.items()},
        "rows": rows,
        "comparisons": harness.comparisons(rows),
    }


def test_run_plan_alternates_and_skips_failures():
    calls = []

    def worker(kind, params, timeout):
        calls.append(params["variant"])
        return _fake_worker(kind, params, timeout)

    config = harness.Config(trials=3, sections=("single",))
    measurements = harness.run_plan(
        harness.plan(config), 3, progress=None, worker=worker, retry_s=None
    )
    # Trials alternate order; the failing system runs once, then is skipped, not retried.
    forward = ["ours-gym", "ours-raw", "gymnasium", "envpool"]
    assert calls == [*forward, "reinfors", *reversed(forward), *forward]
    by = {m.variant: m for m in measurements}
    assert by["reinfors"].skipped == "failed: RuntimeError: boom"
    assert not by["reinfors"].trials
    assert all(len(by[v].trials) == 3 and by[v].skipped is None for v in forward)
    rows = [harness._row(m) for m in measurements]
    assert rows[0]["stats"]["steps_per_s"] == {
        "median": 1000.0,
        "min": 1000.0,
        "max": 1000.0,
        "n": 3,
    }


def test_run_plan_retries_a_transient_failure_once():
    calls = []

    def flaky(kind, params, timeout):
        calls.append(params["variant"])
        if len(calls) == 1:
            return {"error": "ImportError: extension being rebuilt"}
        return {"steps_per_s": 1.0}

    config = harness.Config(trials=1, systems=("ours",), sections=("single",))
    measurements = harness.run_plan(
        harness.plan(config), 1, progress=None, worker=flaky, retry_s=0.0
    )
    assert calls == ["ours-gym", "ours-gym", "ours-raw"]
    assert all(m.skipped is None and len(m.trials) == 1 for m in measurements)


def test_json_schema_round_trip(tmp_path):
    doc = _synthetic_doc()
    path = tmp_path / "out" / "benchmarks.json"
    harness.dump(doc, path)
    again = harness.load(path)
    assert again == json.loads(json.dumps(doc))
    single = {r["variant"]: r for r in again["rows"] if r["section"] == "single"}
    assert single["ours-gym"]["stats"]["steps_per_s"]["median"] == 1000.0
    assert len(single["ours-gym"]["trials"]) == 3
    ratios = {c["what"]: c["ratio"] for c in again["comparisons"]}
    assert ratios["reinfors-gym, gym.make vs Gymnasium CarRacing-v3"] == 10.0
    assert ratios["reset(seed) vs Gymnasium CarRacing-v3"] == 10.0
    assert ratios["memory per env vs EnvPool CarRacing-v3 at 64 envs"] == 2.0
    assert single["reinfors"]["skipped"].startswith("failed")
    assert not any("reinfors Env" in what for what in ratios)

    broken = dict(doc, schema="something-else")
    with pytest.raises(ValueError, match="schema"):
        harness.validate(broken)
    bad_row = json.loads(json.dumps(doc))
    bad_row["rows"][0]["stats"] = {"steps_per_s": {"median": 1.0, "min": 2.0, "max": 3.0}}
    with pytest.raises(ValueError, match="unordered"):
        harness.validate(bad_row)
    with pytest.raises(ValueError, match="rows"):
        harness.validate({k: v for k, v in doc.items() if k != "rows"})


def test_machine_info_fields():
    info = harness.machine_info()
    for key in ("cpu", "cpu id", "cores", "os", "python", "gymnasium", "reinfors-gym", "commit"):
        assert isinstance(info[key], str) and info[key]


def test_cpu_id_tells_generations_apart(tmp_path):
    from reinfors_gym.benchmarks import provenance

    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n"
        "model name\t: AMD EPYC\nstepping\t: 1\n\nprocessor\t: 1\ncpu family\t: 99\n"
    )
    assert provenance.cpu_id(cpuinfo) == "cpu family 26, model 2, stepping 1"
    assert provenance.cpu_model(cpuinfo) == "AMD EPYC"
    assert provenance.cpu_id(tmp_path / "absent") == "unknown"
    (tmp_path / "arm").write_text("processor\t: 0\nFeatures\t: fp asimd\n")
    assert provenance.cpu_id(tmp_path / "arm") == "unknown"


# --------------------------------------------------------------------------- reports


def test_console_table_mentions_every_row():
    doc = _synthetic_doc(trials=1)
    text = report.console(doc)
    for row in doc["rows"]:
        assert row["label"] in text
    assert "ours vs anchors" in text


def test_doc_generator_on_synthetic_json(tmp_path):
    doc = _synthetic_doc()
    src = tmp_path / "benchmarks.json"
    harness.dump(doc, src)
    out = tmp_path / "docs" / "benchmarks.md"
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_bench_doc.py"), str(src), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    text = out.read_text()
    for heading in (
        "# Benchmarks",
        "## Summary: ours vs anchors",
        "## Conditions: what is and is not like-for-like",
        "## Where the time goes",
        "## Machine",
        "## Reproduce",
    ):
        assert heading in text
    assert "Test CPU" in text and "abc1234" in text
    assert "reinfors-gym bench --out docs" in text
    assert "Placeholder" in text
    assert "| comparison | ours | anchor | ratio |" in text
    assert "of the ceiling" in text and "of num_threads=1" in text
    assert "of the 2-thread rate" in text
    assert "![" not in text  # no charts beside the page: none linked

    # The maintainer's profile text survives regeneration.
    filled = text.replace("_TODO: per-step breakdown", "Rasterization is 60%. _was: breakdown")
    out.write_text(filled)
    (out.parent / "img").mkdir()
    (out.parent / "img" / "bench_threads.png").write_bytes(b"png")
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_bench_doc.py"), str(src), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    text = out.read_text()
    assert "Rasterization is 60%." in text
    assert "](img/bench_threads.png)" in text and "bench_num_envs.png" not in text


def test_charts_or_note(tmp_path):
    doc = _synthetic_doc(trials=1)
    written, note = report.charts(doc, tmp_path / "img")
    if note is None:
        assert {p.name for p in written} >= {
            "bench_threads.png",
            "bench_num_envs.png",
            "bench_policy.png",
            "bench_oversub.png",
        }
        assert all(p.stat().st_size > 0 for p in written)
    else:
        assert written == [] and "matplotlib" in note


# --------------------------------------------------------------------------- command line


def test_cli_bench_help():
    run = subprocess.run(
        [sys.executable, "-m", "reinfors_gym.cli", "bench", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    for option in ("--quick", "--out", "--systems", "--trials", "--seconds"):
        assert option in run.stdout


def test_worker_reports_unknown_kind_as_usage_error():
    run = subprocess.run(
        [sys.executable, "-m", "reinfors_gym.benchmarks.worker"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0 and "usage" in run.stderr


def test_soak_section_reports_the_change_from_1m_to_the_end():
    def run(end_kib: int) -> dict:
        steps = [0, 1_000_000, 5_000_000, 10_000_000]
        rss = [50_000, 100_000, 101_000, end_kib]
        samples = [{"steps": s, "rss_kib": r} for s, r in zip(steps, rss, strict=True)]
        return {"make": "x", "samples": samples}

    soak = {
        "command": "python bench/soak.py",
        "date_utc": "2026-12-01",
        "machine": {"commit": "abcdef0123"},
        "config": {"sample_every": 250_000, "render_every": 50_000, "tolerance": 0.05},
        "criterion": "within 5%",
        "runs": {"single": run(104_000), "vector": run(110_000)},
    }
    text = "\n".join(report.soak_section(soak))
    assert "| single (x) | 97.7 MiB | 101.6 MiB (10M) | +4.00% | pass |" in text
    assert "| vector (x) | 97.7 MiB | 107.4 MiB (10M) | +10.00% | **fail** |" in text
