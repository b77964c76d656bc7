"""The policy-loops benchmark (`reinfors-gym bench --loops`) without timing anything: its plan,
the serial bound and ratios, the results document, the console report and the command line;
and each loop run for a moment on the real env with the device-like policy."""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest

from reinfors_gym import cli
from reinfors_gym.benchmarks import loop_ratios, loops, thread_cpu
from reinfors_gym.benchmarks.thread_cpu import ThreadTimes


def _fake_worker(kind: str, params: dict, timeout: float) -> dict:
    """Rates by loop: the policy alone 1000, the step alone 9000, async near the ceiling."""
    assert kind == "loop"
    rate = {"ceiling": 1000.0, "step": 9000.0, "step-1": 4000.0, "sync": 850.0, "async": 980.0}
    rate.update({"envpool-async": 400.0, "ceiling-busy": 1000.0, "ceiling-touch": 800.0})
    if params["policy"] == "cnn" and params["torch_threads"] > 1:
        rate["async"] = 845.0  # nothing to overlap
    return {"steps_per_s": rate[params["loop"]], "policy_ms": 2.0, "env_ms": 0.2}


@pytest.fixture(autouse=True)
def _all_installed(monkeypatch):
    monkeypatch.setattr(loops, "_missing", lambda row: None)


def test_plan_has_every_loop_of_every_policy():
    chosen, rows = loops.plan(loops.Config(), cores=2)
    names = ["device", "cnn-1", "cnn-1-kept", "cnn-all", "cnn-all-passive", "cnn-all-kept"]
    assert [g.name for g in chosen] == names
    assert len(rows) == 6 * len(loops.LOOPS) + 5 * len(loops.PROBES)
    assert len({r.id for r in rows}) == len(rows)
    # The probes of the policy alone with work between its calls are the CNN's only.
    probed = {r.group for r in rows if r.loop in loops.PROBES}
    assert probed == set(names) - {"device"}
    threads = {r.group: r.params["torch_threads"] for r in rows}
    assert threads == {
        "device": 0,
        "cnn-1": 1,
        "cnn-1-kept": 1,
        "cnn-all": 2,
        "cnn-all-passive": 2,
        "cnn-all-kept": 2,
    }
    passive = {r.group for r in rows if r.params.get("omp_wait_policy") == "PASSIVE"}
    assert passive == {"cnn-all-passive"}
    kept = {r.group for r in rows if r.params.get("keep_freed_memory")}
    assert kept == {"cnn-1-kept", "cnn-all-kept"}
    _, some = loops.plan(loops.Config(groups=("device",)), cores=2)
    assert {r.group for r in some} == {"device"}


def test_serial_bound_and_ratios():
    rows = {
        loop: {"skipped": None, "stats": {"steps_per_s": {"median": rate}}}
        for loop, rate in (("ceiling", 1000.0), ("step", 9000.0), ("sync", 850.0))
    }
    rows["async"] = {"skipped": None, "stats": {"steps_per_s": {"median": 970.0}}}
    rows["envpool-async"] = {"skipped": "not installed (envpool)", "stats": {}}
    rows["step-1"] = {"skipped": None, "stats": {"steps_per_s": {"median": 4000.0}}}
    s = loop_ratios.summarize_group(rows)
    # The step on one thread: 1 ms + 1/4 ms per 1000 steps/s.
    assert s["one_core_bound"] == pytest.approx(800.0)
    assert s["sync_of_one_core_bound"] == pytest.approx(850 / 800)
    # A batch takes the policy's time plus the step's: 1 ms + 1/9 ms per 1000 steps/s.
    assert s["serial_bound"] == pytest.approx(900.0)
    assert s["bound_of_ceiling"] == pytest.approx(0.9)
    assert s["async_of_ceiling"] == pytest.approx(0.97)
    assert s["async_over_sync"] == pytest.approx(970 / 850)
    assert s["sync_of_bound"] == pytest.approx(850 / 900)
    assert "envpool_async" not in s and "async_over_envpool" not in s
    assert "policy_alone_ms" not in s  # no row here reports the policy's time


def _rows_with(key: str, medians: dict[str, float]) -> dict[str, dict]:
    """One group's rows by loop, each at 1000 steps/s with `key`'s median as given."""
    return {
        loop: {
            "skipped": None,
            "stats": {"steps_per_s": {"median": 1000.0}, key: {"median": value}},
        }
        for loop, value in medians.items()
    }


def test_summary_gives_the_policys_time_alone_after_each_probe_and_in_sync():
    policy_ms = {"ceiling": 2.0, "ceiling-busy": 2.05, "ceiling-touch": 2.6, "sync": 2.5}
    rows = _rows_with("policy_ms", policy_ms)
    s = loop_ratios.summarize_group(rows)
    assert s["policy_alone_ms"] == 2.0 and s["policy_in_sync_ms"] == 2.5
    assert s["policy_after_busy_ms"] == 2.05 and s["policy_after_touch_ms"] == 2.6
    rows["ceiling-touch"]["skipped"] = "failed: boom"
    assert "policy_after_touch_ms" not in loop_ratios.summarize_group(rows)


def test_summary_gives_the_page_faults_alone_and_in_sync():
    rows = _rows_with("page_faults", {"ceiling": 3.0, "sync": 410.0, "step": 1.0})
    s = loop_ratios.summarize_group(rows)
    assert (s["page_faults_alone"], s["page_faults_in_sync"]) == (3.0, 410.0)
    rows["sync"]["skipped"] = "failed: boom"
    assert "page_faults_in_sync" not in loop_ratios.summarize_group(rows)


def test_busy_for_spins_on_the_cpu():
    start_cpu = time.thread_time()
    start = time.perf_counter()
    loops.busy_for(0.1)
    assert time.perf_counter() - start >= 0.1
    # It holds a core (CPU time; a sleep uses almost none), even on a machine busy enough to
    # give this thread a tenth of one.
    assert time.thread_time() - start_cpu >= 0.01


def test_read_memory_for_reads_slices_and_wraps_around():
    buffer = np.zeros(3 * loops.TOUCH_SLICE, np.uint8)
    read, at = loops.read_memory_for(buffer, 0.0, 0)
    assert (read, at) == (loops.TOUCH_SLICE, loops.TOUCH_SLICE)  # at least one slice
    read, at = loops.read_memory_for(buffer, 0.0, 2 * loops.TOUCH_SLICE)
    assert at == 0  # wrapped
    read, _ = loops.read_memory_for(buffer, 0.01, 0)
    assert read > loops.TOUCH_SLICE  # it keeps reading until the time is up


def test_a_run_gives_a_valid_document_with_the_issues_checks(tmp_path):
    config = loops.Config(trials=3, seconds=0.1, warmup=0.0)
    doc = loops.run(config, progress=None, worker=_fake_worker)
    assert loops.validate(doc) is doc
    assert all(len(r["trials"]) == 3 and not r["skipped"] for r in doc["rows"])
    device = doc["summary"]["device"]
    assert device["async_of_ceiling"] == pytest.approx(0.98)
    assert device["async_over_envpool"] == pytest.approx(980 / 400)
    checks = {(c["group"], c["ratio"]): c for c in doc["checks"]}
    assert checks[("device", "async_of_ceiling")]["met"]
    assert checks[("device", "async_over_sync")]["met"]  # 980 / 850 = 1.15
    assert not checks[("cnn-1", "async_over_sync")]["met"]  # 1.15 < 1.2
    assert checks[("cnn-all", "async_over_sync")]["value"] == pytest.approx(845 / 850)
    # Glibc keeping freed memory is held to the same targets as the default.
    for base in ("cnn-1", "cnn-all"):
        kept = {ratio for group, ratio in checks if group == f"{base}-kept"}
        assert kept == {ratio for group, ratio in checks if group == base}
    # With async at the ceiling (1000) the loop would be 1000 / 850 = 1.18x sync: under the
    # CNN's 1.2, so that target is out of reach on the machine measured; 2.5x EnvPool is not.
    assert checks[("cnn-1", "async_over_sync")]["at_most_here"] == pytest.approx(1000 / 850)
    assert checks[("device", "async_over_envpool")]["at_most_here"] == pytest.approx(2.5)
    assert checks[("device", "async_of_ceiling")]["at_most_here"] is None
    text = loops.console(doc)
    assert "Issue 34's targets" in text and "NOT met" in text
    assert text.count("out of reach here") == 2  # cnn-1 and cnn-1-kept's 1.2x sync
    path = tmp_path / "async_loops.json"
    loops.dump(doc, path)
    assert loops.load(path) == json.loads(path.read_text())
    with pytest.raises(ValueError, match="schema"):
        loops.validate({**doc, "schema": "nope"})


def test_attainable_is_the_ceiling_over_the_other_loop():
    s = {"ceiling": 3800.0, "sync": 3250.0, "envpool_async": 3270.0, "async": 3760.0}
    assert loop_ratios.attainable(s, "async_over_sync") == pytest.approx(3800 / 3250)
    assert loop_ratios.attainable(s, "async_over_envpool") == pytest.approx(3800 / 3270)
    # Not a ratio over another loop, or a rate missing (EnvPool not installed): no bound.
    assert loop_ratios.attainable(s, "sync_of_bound") is None
    assert loop_ratios.attainable({"ceiling": 3800.0}, "async_over_envpool") is None


def test_a_failing_loop_is_skipped_not_fatal():
    def worker(kind: str, params: dict, timeout: float) -> dict:
        if params["loop"] == "envpool-async":
            return {"error": "RuntimeError: boom"}
        return _fake_worker(kind, params, timeout)

    doc = loops.run(loops.Config(trials=2, groups=("device",)), progress=None, worker=worker)
    pool = next(r for r in doc["rows"] if r["loop"] == "envpool-async")
    assert pool["skipped"].startswith("failed") and not pool["trials"]
    assert "async_over_envpool" not in doc["summary"]["device"]


def test_the_command_line_writes_the_document(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(loops, "run_worker", _fake_worker)
    code = cli.main(["bench", "--loops", "--quick", "--out", str(tmp_path)])
    assert code == 0
    doc = loops.load(tmp_path / "async_loops.json")
    assert doc["config"]["trials"] == 1 and doc["config"]["quick"]
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize(
    "loop", ["ceiling", "step", "step-1", "sync", "async", "ceiling-busy", "ceiling-touch"]
)
def test_each_loop_runs_on_the_real_env(loop):
    out = loops.measure(
        policy="device",
        loop=loop,
        torch_threads=0,
        num_envs=4,
        batch_size=2,
        seconds=0.05,
        warmup=0.0,
    )
    assert out["steps_per_s"] > 0 and math.isfinite(out["policy_ms"] + out["env_ms"])
    assert out["page_faults"] >= 0
    # The device-like policy holds each iteration 2 ms.
    if not loop.startswith("step"):
        assert out["policy_ms"] >= 1.9
    if loop in loops.PROBES:  # the work between calls, timed apart from the policy
        assert out["env_ms"] >= 0.9 * loops.INTERPOSED_MS


def test_thread_cpu_splits_by_role_per_iteration():
    ms = 1_000_000
    before = {
        1: ThreadTimes("python", 10 * ms, 0),
        2: ThreadTimes("reinfors-gym-0", 5 * ms, 1),
        3: ThreadTimes("python", 0, 2),
        4: ThreadTimes("gone", 50 * ms, 0),
    }
    after = {
        1: ThreadTimes("python", 30 * ms, 1),  # the caller: 20 ms
        2: ThreadTimes("reinfors-gym-0", 9 * ms, 1),  # a helper: 4 ms
        3: ThreadTimes("python", 16 * ms, 5),  # a policy worker: 16 ms
        5: ThreadTimes("omp", 4 * ms, 2),  # started in between: from zero
    }
    out = thread_cpu.split(before, after, iterations=10, caller=1)
    assert out == pytest.approx(
        {
            "caller_cpu_ms": 2.0,
            "helpers_cpu_ms": 0.4,
            "others_cpu_ms": 2.0,
            "involuntary_switches": 0.6,
        }
    )
    assert thread_cpu.split({}, after, 10, caller=1) == {}
    assert thread_cpu.split(before, after, 0, caller=1) == {}


@pytest.mark.skipif(not thread_cpu.TASKS.is_dir(), reason="/proc/self/task is Linux's")
def test_thread_cpu_sees_a_busy_thread_beside_the_caller():
    import threading
    import time

    def burn(seconds: float) -> None:
        """Uses `seconds` of this thread's CPU time, however busy the machine is."""
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass

    before = thread_cpu.snapshot()
    ended = threading.Thread(target=burn, args=(0.3,))
    ended.start()
    ended.join()
    # join() returns before the OS thread is gone: wait until /proc no longer lists it.
    deadline = time.monotonic() + 10
    while (thread_cpu.TASKS / str(ended.native_id)).exists() and time.monotonic() < deadline:
        time.sleep(0.001)
    # A thread that ended between the snapshots is not counted.
    assert thread_cpu.split(before, thread_cpu.snapshot(), 1)["others_cpu_ms"] < 100
    before = thread_cpu.snapshot()
    burned, release = threading.Event(), threading.Event()
    other = threading.Thread(target=lambda: (burn(0.3), burned.set(), release.wait()))
    other.start()
    burn(0.1)
    assert burned.wait(30)
    out = thread_cpu.split(before, thread_cpu.snapshot(), 1)
    release.set()
    other.join()
    assert out["others_cpu_ms"] > 290 and 90 < out["caller_cpu_ms"] < 250
    assert out["helpers_cpu_ms"] < 5  # the Python thread is not taken for a pool helper


@pytest.mark.skipif(not thread_cpu.TASKS.is_dir(), reason="/proc/self/task is Linux's")
def test_the_one_thread_step_runs_on_the_caller_alone():
    out = loops.measure("device", "step-1", 0, 4, 2, seconds=0.1, warmup=0.0)
    assert out["helpers_cpu_ms"] == 0 and out["caller_cpu_ms"] > 0


@pytest.mark.skipif(not thread_cpu.TASKS.is_dir(), reason="/proc/self/task is Linux's")
def test_the_pools_helper_threads_carry_the_helper_name():
    import reinfors_gym

    env = reinfors_gym.CarRacingVectorEnv(2, num_threads=2)
    if env.num_threads < 2:
        env.close()
        pytest.skip("one core: the pool starts no helper")
    import time

    try:
        # A new thread names itself once it runs: give the helpers a moment to start.
        deadline = time.monotonic() + 10
        while True:
            names = {t.name for t in thread_cpu.snapshot().values()}
            named = any(name.startswith(thread_cpu.HELPER_PREFIX) for name in names)
            if named or time.monotonic() > deadline:
                break
            time.sleep(0.001)
    finally:
        env.close()
    assert named, names


def test_the_kept_group_keeps_freed_memory_before_it_measures(monkeypatch):
    from reinfors_gym import allocator

    calls = []
    monkeypatch.setattr(allocator, "keep_freed_memory", lambda: calls.append("kept") or "")
    args = dict(policy="device", loop="ceiling", torch_threads=0, num_envs=2, batch_size=2)
    loops.measure(**args, seconds=0.01, warmup=0.0)
    assert calls == []
    loops.measure(**args, seconds=0.01, warmup=0.0, keep_freed_memory=True)
    assert calls == ["kept"]


@pytest.mark.skipif(thread_cpu.page_faults() is None, reason="no page fault count here")
def test_page_faults_count_the_pages_a_fresh_block_takes():
    import mmap

    block = mmap.mmap(-1, 8 << 20)  # fresh pages from the kernel, none touched yet
    before = thread_cpu.page_faults()
    np.frombuffer(block, np.uint8)[:] = 1
    after = thread_cpu.page_faults()
    assert after > before
