"""examples/train.py, the one-command recipe: the collector's Beta policy beside PyTorch's Beta,
a smoke run of the script (a few tiny updates, export, evaluation on two seeds, run.json), and
examples/evaluate.py's --video on both envs."""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import imageio
import numpy as np
import pytest
import torch

import reinfors_gym as rf

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
ENV = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
LOW = torch.tensor([-1.0, 0.0, 0.0], dtype=torch.float64)
WIDTH = torch.tensor([2.0, 1.0, 1.0], dtype=torch.float64)


def load(name: str):
    sys.path.insert(0, str(EXAMPLES))
    try:
        spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    return module


def beta_engine(n_games: int = 4) -> rf.Engine:
    return rf.Engine(
        game=rf.games.CarRacing(frame_skip=2, grayscale=True),
        policy=rf.policies.Ppo(distribution="beta"),
        n_games=n_games,
        n_threads=2,
        seed=0,
    )


# Per game: (alpha[3], beta[3]); from near-uniform to sharp, below 1 (U-shaped) too.
CONCENTRATIONS = np.array(
    [
        [2.0, 3.0, 1.05, 2.0, 2.0, 20.0],
        [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        [0.5, 8.0, 1.5, 0.7, 1.2, 40.0],
        [50.0, 200.0, 3.0, 60.0, 10.0, 300.0],
    ],
    np.float32,
)


def test_collector_log_probs_equal_torch_beta():
    """`behavior_log_probs` is torch's Beta log-density of the stored action mapped back to
    (0, 1), less log(width) per dimension (the affine map's Jacobian), summed."""

    def infer(obs):
        return CONCENTRATIONS[: len(obs)], np.zeros(len(obs), np.float32)

    batch = beta_engine().collect(4 * 40, infer)
    actions = torch.from_numpy(batch.actions).double()  # (T, G, 3)
    assert ((actions > LOW) & (actions < LOW + WIDTH)).all(), "strictly inside the box"
    c = torch.from_numpy(CONCENTRATIONS).double()
    dist = torch.distributions.Beta(c[:, :3], c[:, 3:])  # broadcasts over (T, G, 3)
    expect = (dist.log_prob((actions - LOW) / WIDTH) - WIDTH.log()).sum(-1)
    np.testing.assert_allclose(batch.behavior_log_probs, expect.numpy(), rtol=1e-5, atol=1e-4)
    # The recipe's own distribution (train.BoxBeta) gives the same numbers.
    train = load("train")
    mine = train.BoxBeta(c[:, :3].expand_as(actions), c[:, 3:].expand_as(actions))
    np.testing.assert_allclose(mine.log_prob(actions).numpy(), expect.numpy(), rtol=1e-12)
    # And the samples follow the Beta: per game and dimension, the mean of x near alpha/(a+b).
    x = ((actions - LOW) / WIDTH).mean(0).numpy()
    mean = (c[:, :3] / (c[:, :3] + c[:, 3:])).numpy()
    np.testing.assert_allclose(x, mean, atol=0.2)


def test_the_pair_form_and_bad_concentrations():
    engine = beta_engine(2)
    alpha, beta = CONCENTRATIONS[:2, :3], CONCENTRATIONS[:2, 3:]
    batch = engine.collect(2, lambda obs: ((alpha, beta[0]), np.zeros(len(obs))))
    assert batch.actions.shape == (1, 2, 3)
    for bad in (0.0, -1.0, np.nan):
        policy = CONCENTRATIONS[:2].copy()
        policy[1, 4] = bad
        with pytest.raises(ValueError) as info:
            engine.collect(2, lambda obs, p=policy: (p, np.zeros(len(obs))))
        assert "panicked" not in str(info.value)


def test_train_smoke_exports_evaluates_and_records(tmp_path):
    out = tmp_path / "run"
    run = subprocess.run(
        [sys.executable, str(EXAMPLES / "train.py"), "--seed", "3", "--out", str(out),
         "--total-decisions", "256", "--max-minutes", "0", "--n-games", "4",
         "--collect-size", "128", "--epochs", "1", "--minibatch-size", "64", "--eval-seeds", "0-1",
         "--eval-max-decisions", "15", "--precision", "auto"],
        cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    record = json.loads((out / "run.json").read_text())
    precision = load("precision")
    # --precision auto took what this machine's flags say, said why, and records it.
    chosen, reason = record["options"]["precision"], record["precision_reason"]
    flags = precision.flag_precision(torch.device("cpu"))
    if flags is None:  # a CPU whose flags say nothing: timed
        assert set(record["precision_seconds"]) == {"fp32", "bf16"}
    else:
        assert (chosen, reason, record["precision_seconds"]) == (*flags, None)
    assert f"precision: {chosen} ({reason})" in run.stdout
    for key in ("seed", "wall_clock_s", "decisions", "env_steps", "evaluation", "versions",
                "cpu_model", "device"):  # fmt: skip
        assert key in record, key
    assert record["seed"] == 3 and record["decisions"] == 256 and record["updates"] == 2
    assert record["env_steps"] == 256 * 4  # the default frame skip
    assert 0 < record["wall_clock_s"] < 600
    assert set(record["versions"]) >= {"torch", "gymnasium", "numpy"}
    assert record["versions"]["torch"] == torch.__version__
    assert record["cpu_model"]
    assert record["cpu_id"].startswith("cpu family ") or record["cpu_id"] == "unknown"
    evaluation = record["evaluation"]
    assert set(evaluation) == {"gymnasium_mean_actions", "gymnasium_sampled", "ours_mean_actions"}
    for result in evaluation.values():
        assert len(result["returns"]) == 2 and result["mean"] == np.mean(result["returns"])
    # Evaluated in two processes, in seed order: the same returns as in this one.
    evaluate = load("evaluate")
    again = evaluate.evaluate("gymnasium", str(out / "policy.pt2"), [0, 1], max_decisions=15)
    assert again == evaluation["gymnasium_mean_actions"]["returns"]
    # The export is the best scored snapshot (a tie goes to the later one); the last update is
    # kept beside it when it is not the best.
    selection = record["selection"]
    assert selection["seeds"] == list(range(3000, 3050))
    snapshots = selection["snapshots"]
    assert [s["update"] for s in snapshots] == [1, 2], "halfway, then the last update"
    for snapshot in snapshots:  # the default scores mean and sampled actions
        assert snapshot["score"] == (snapshot["mean"] + snapshot["sampled"]) / 2
    best = max(range(len(snapshots)), key=lambda i: (snapshots[i]["score"], i))
    assert selection["exported"] == snapshots[best]
    assert (out / "policy_last.pt2").exists() == (best != len(snapshots) - 1)
    selector = load("snapshot_selection").SnapshotSelector(
        selection["seeds"], {"frame_skip": 4, "stack_num": 2, "grayscale": True}, max_decisions=15
    )
    exported_policy = evaluate.load_policy(str(out / "policy.pt2"))[0]
    assert selector.returns(exported_policy).mean() == pytest.approx(snapshots[best]["mean"])
    sampled = selector.returns(exported_policy, sample=True).mean()
    assert sampled == pytest.approx(snapshots[best]["sampled"])
    rows = (out / "scalars.csv").read_text().strip().splitlines()
    assert len(rows) == 1 + 2
    assert_tensorboard_holds_the_scalars(out)
    # The progress bar counts the decisions budget; the evaluation says what it will run and
    # how long it may take before its first episode, then shows a bar per run.
    assert "256/256" in run.stderr, run.stderr[-2000:]
    plan = run.stdout.index("evaluating on seeds 0-1: Gymnasium's CarRacing-v3")
    assert re.search(r"at most ~\d+ min", run.stdout[plan:]), run.stdout[plan:]
    assert plan < run.stdout.index("gymnasium_mean_actions: mean")
    for name in ("gymnasium_mean_actions", "gymnasium_sampled", "ours_mean_actions"):
        assert f"{name}: 100%" in run.stderr, name
    assert 0 < record["evaluation_s"] and 0 < record["evaluation_estimate_s"]
    # The export is evaluate.py's format, with its distribution and preprocessing.
    policy, preprocessing, distribution = evaluate.load_policy(str(out / "policy.pt2"))
    assert distribution == "beta"
    assert preprocessing == {"frame_skip": 4, "stack_num": 2, "grayscale": True}
    alpha, beta, value = policy(torch.zeros((3, 2, 96, 96), dtype=torch.uint8))
    assert alpha.shape == beta.shape == (3, 3) and value.shape == (3,)
    assert (alpha > 1).all() and (beta > 1).all()

    # --evaluate-only re-evaluates the finished run on other seeds: only the evaluation changes.
    again = subprocess.run(
        [sys.executable, str(EXAMPLES / "train.py"), "--evaluate-only", "--out", str(out),
         "--eval-seeds", "4", "--eval-max-decisions", "15", "--eval-workers", "1"],
        cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert again.returncode == 0, again.stdout + again.stderr
    assert "decisions in" not in again.stdout, "nothing is trained"
    reevaluated = json.loads((out / "run.json").read_text())
    assert reevaluated.pop("evaluated_after_training") is True
    assert reevaluated["eval_seeds"] == [4]
    for result in reevaluated["evaluation"].values():
        assert len(result["returns"]) == 1
    expect = evaluate.evaluate("reinfors", str(out / "policy.pt2"), [4], max_decisions=15)
    assert reevaluated["evaluation"]["ours_mean_actions"]["returns"] == expect
    evaluation_fields = {"eval_seeds", "evaluation", "evaluation_s", "evaluation_estimate_s"}
    assert evaluation_fields <= set(reevaluated)
    for key in set(record) - evaluation_fields:
        assert reevaluated[key] == record[key], key
    # A folder without a finished run is refused with a message.
    empty = subprocess.run(
        [sys.executable, str(EXAMPLES / "train.py"), "--evaluate-only", "--out", str(tmp_path)],
        cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert empty.returncode != 0 and "holds no finished run" in empty.stderr


def assert_tensorboard_holds_the_scalars(out: Path) -> None:
    """TensorBoard's event file beside scalars.csv holds every scalar of every row, against
    the decisions trained."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    (events,) = out.glob("events.out.tfevents.*")
    board = EventAccumulator(str(events))
    board.Reload()
    with open(out / "scalars.csv") as f:
        rows = list(csv.DictReader(f))
    tags = set(board.Tags()["scalars"])
    assert {"policy_loss", "approx_kl", "lr", "train_s", "wall_s"} <= tags
    for name in set(rows[0]) - {"env_steps"}:
        if all(row[name] == "nan" for row in rows):
            assert name not in tags, name  # NaN (no episode ended yet) is not logged
            continue
        logged = {e.step: e.value for e in board.Scalars(name)}
        for row in rows:
            if row[name] != "nan":
                step = int(row["env_steps"])
                assert logged[step] == pytest.approx(float(row[name]), rel=1e-5), (name, step)


def train_briefly(out: Path, *budget: str) -> tuple[str, dict]:
    """train.py with a small learner, no snapshots and no evaluation, within `budget`'s options:
    the progress bar's last line and run.json."""
    run = subprocess.run(
        [sys.executable, str(EXAMPLES / "train.py"), "--seed", "1", "--out", str(out), *budget,
         "--n-games", "4", "--collect-size", "128", "--epochs", "1", "--minibatch-size", "64",
         "--eval-seeds", "", "--select-seeds", ""],
        cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    last = run.stderr.replace("\r", "\n").strip().splitlines()[-1]
    return last, json.loads((out / "run.json").read_text())


def test_a_time_budget_shows_minutes_in_the_progress_bar(tmp_path):
    last, record = train_briefly(
        tmp_path / "run", "--total-decisions", "100000", "--max-minutes", "0.25"
    )
    assert re.search(r"\| \d+\.\d/0\.25 min \[", last), last
    assert "decisions " in last and "decisions/s" in last
    assert record["decisions"] < 100000 and 15 <= record["wall_clock_s"] < 60


def test_the_progress_bar_ends_where_the_decisions_end_a_timed_run(tmp_path):
    # Both budgets: the decisions end the run long before its 5 minutes, and the bar's total is
    # that end (the minutes they took at the run's rate), not the 5 minutes.
    last, record = train_briefly(tmp_path / "run", "--total-decisions", "512", "--max-minutes", "5")
    shown = re.search(r"(\d+)%\|.*\| (\d+\.\d)/([\d.]+) min \[", last)
    assert shown, last
    percent, done, total = int(shown[1]), float(shown[2]), float(shown[3])
    assert percent == 100 and abs(done - total) <= 0.05 and total < 5, last
    assert record["decisions"] == 512


def test_train_help_shows_every_default():
    run = subprocess.run(
        [sys.executable, str(EXAMPLES / "train.py"), "--help"],
        env=ENV, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    text = " ".join(run.stdout.split())
    for shown in ("(default: 4)", "(default: 13000-13099)", "(default: 3000-3049)",
                  "(default: -0.5)", "(default: -10.0)", "(default: auto)", "(default: 13.5)",
                  "(default: (2.0, 3.0, 1.05))", "(default: 1300000)", "(default: 0)",
                  "(default: 0.9925)"):  # fmt: skip
        assert shown in text, shown


def test_the_defaults_are_recipe_11():
    """train.py's defaults are recipe 11's command (docs/training_variants.json, variant 10a:
    recipe 10, variant 9z2, with a 1.3M-decision budget), with --precision auto in place of its
    bf16."""
    args = load("train").parse_args([])
    assert (args.max_minutes, args.total_decisions, args.gamma, args.overlap) == (
        13.5,
        1_300_000,
        0.9925,
        False,
    )
    assert (args.downsample, args.epochs, args.cut_without_progress) == (2, 4, 0)
    assert args.precision == "auto"


def test_the_mean_action_of_the_initial_policy_drives_and_does_not_brake():
    """The recipe's untrained policy: its mean action is straight ahead, gas 0.6, brake 0.05,
    whatever it sees (the head's weights start near 0)."""
    train = load("train")
    agent = train.BetaAgent(train.parse_args([]))
    obs = torch.randint(0, 255, (5, 2, 96, 96), dtype=torch.uint8)
    alpha, beta, _ = agent(obs)
    x = alpha / (alpha + beta)
    action = LOW.float() + WIDTH.float() * x
    np.testing.assert_allclose(action.detach().numpy(), [[0.0, 0.6, 0.05]] * 5, atol=0.02)


@pytest.mark.parametrize("which", ["gymnasium", "reinfors"])
def test_evaluate_writes_a_video(tmp_path, which):
    evaluate = load("evaluate")

    class Steady(torch.nn.Module):
        def forward(self, obs: torch.Tensor):
            n = obs.shape[0]
            alpha = torch.tensor([[2.0, 3.0, 1.05]]).expand(n, 3)
            return alpha, torch.tensor([[2.0, 2.0, 20.0]]).expand(n, 3), torch.zeros(n)

    checkpoint = tmp_path / "steady.pt2"
    preprocessing = {"frame_skip": 2, "stack_num": 2, "grayscale": True}
    evaluate.save_checkpoint(Steady(), str(checkpoint), preprocessing, distribution="beta")
    video = tmp_path / "episode.mp4"
    subprocess.run(
        [sys.executable, str(EXAMPLES / "evaluate.py"), "--env", which, "--checkpoint",
         str(checkpoint), "--seeds", "5", "--max-decisions", "12", "--video", str(video)],
        env=ENV, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    with imageio.get_reader(str(video)) as reader:
        frames = [np.asarray(frame) for frame in reader]
        fps = reader.get_meta_data()["fps"]
    # The reset's frame, then one per simulation step (12 decisions of 2).
    assert len(frames) == 1 + 12 * 2
    assert frames[0].shape == (400, 600, 3)
    assert fps == 50
    # The road is grey and the grass green: a real picture, not a blank one.
    assert frames[-1].std() > 10


class ConstantBeta(torch.nn.Module):
    """A policy that ignores what it sees: fixed Beta concentrations (a parameter, so that its
    weights can be copied and told apart)."""

    def __init__(self, alpha: list[float], beta: list[float]):
        super().__init__()
        self.concentrations = torch.nn.Parameter(torch.tensor([alpha, beta]))

    def forward(self, obs: torch.Tensor):
        n = obs.shape[0]
        alpha, beta = self.concentrations
        return alpha.expand(n, 3), beta.expand(n, 3), torch.zeros(n)


PREPROCESSING = {"frame_skip": 4, "stack_num": 2, "grayscale": True}
DRIVE = ([2.0, 3.0, 1.05], [2.0, 2.0, 20.0])  # straight ahead, gas 0.6, brake 0.05
STAND = ([2.0, 1.05, 1.05], [2.0, 20.0, 20.0])  # gas 0.05: crawls


def test_snapshot_scores_are_evaluate_py_returns_on_our_env(tmp_path):
    """One episode per seed, what follows its end not counted: with a policy that ignores its
    input (no batch rounding), each seed's return is evaluate.py's on our env, whole episodes;
    with a CNN policy and one seed, too."""
    evaluate = load("evaluate")
    selection = load("snapshot_selection")
    seeds = [11, 12]
    drive = ConstantBeta(*DRIVE)
    checkpoint = tmp_path / "drive.pt2"
    evaluate.save_checkpoint(drive, str(checkpoint), PREPROCESSING, distribution="beta")
    selector = selection.SnapshotSelector(seeds, PREPROCESSING)
    scored = selector.returns(drive)
    expect = evaluate.evaluate("reinfors", str(checkpoint), seeds)
    np.testing.assert_array_equal(scored, expect)
    assert len(set(expect)) == 2, "two different tracks"

    train = load("train")
    agent = train.BetaAgent(train.parse_args([]))
    checkpoint = tmp_path / "agent.pt2"
    evaluate.save_checkpoint(agent, str(checkpoint), PREPROCESSING, distribution="beta")
    one = selection.SnapshotSelector([7], PREPROCESSING, max_decisions=40)
    expect = evaluate.evaluate("reinfors", str(checkpoint), [7], max_decisions=40)
    assert one.returns(agent).tolist() == expect


def test_sampled_snapshot_scores_are_evaluate_py_sampled_returns(tmp_path):
    """Sampled scoring draws each seed's actions from evaluate.py's stream for that seed and
    sample seed, one draw per decision of a running episode: the same returns as
    `evaluate.py --sample --sample-seed K` on our env."""
    evaluate = load("evaluate")
    selection = load("snapshot_selection")
    seeds = [11, 12]
    noisy = ConstantBeta([1.5, 2.0, 1.05], [1.5, 1.5, 8.0])  # wide: every draw matters
    checkpoint = tmp_path / "noisy.pt2"
    evaluate.save_checkpoint(noisy, str(checkpoint), PREPROCESSING, distribution="beta")
    for sample_seed in (0, 5):
        selector = selection.SnapshotSelector(seeds, PREPROCESSING, sample_seed=sample_seed)
        scored = selector.returns(noisy, sample=True)
        expect = evaluate.evaluate("reinfors", str(checkpoint), seeds, True, sample_seed)
        np.testing.assert_array_equal(scored, expect)
        assert not np.array_equal(scored, selector.returns(noisy)), "the draws count"
        selector.close()


def test_sampled_selection_scores_the_average_of_mean_and_sampled():
    selection = load("snapshot_selection")
    selector = selection.SnapshotSelector([3, 4], PREPROCESSING, max_decisions=60, sampled=True)
    drive = ConstantBeta(*DRIVE)
    score = selector.score(drive, update=1)
    record = selector.best()
    assert record["mean"] == selector.returns(drive).mean()
    assert record["sampled"] == selector.returns(drive, sample=True).mean()
    assert record["mean"] != record["sampled"]
    assert score == record["score"] == (record["mean"] + record["sampled"]) / 2
    # Four times the concentrations: the same mean action, other draws. The means tie (a tie
    # would go to the later snapshot), so the sampled scores decide.
    same_mean = ConstantBeta([4 * a for a in DRIVE[0]], [4 * b for b in DRIVE[1]])
    other = selector.score(same_mean, update=2)
    assert selector.snapshots[1]["mean"] == record["mean"]
    assert other < score
    assert selector.best()["update"] == 1
    selector.close()


def test_the_selector_keeps_the_best_snapshot_and_a_tie_goes_to_the_later():
    selection = load("snapshot_selection")
    selector = selection.SnapshotSelector([3, 4], PREPROCESSING, max_decisions=60)
    drive, stand = ConstantBeta(*DRIVE), ConstantBeta(*STAND)
    first = selector.score(drive, update=1)
    assert selector.score(stand, update=2) < first
    assert selector.best() == {"update": 1, "mean": first, "score": first}
    assert torch.equal(selector.best_state["concentrations"], drive.concentrations)
    # The kept weights are a copy: training on after the score does not change them.
    with torch.no_grad():
        drive.concentrations.add_(1.0)
    assert not torch.equal(selector.best_state["concentrations"], drive.concentrations)
    later = ConstantBeta(*DRIVE)
    assert selector.score(later, update=3) == first
    assert selector.best()["update"] == 3
    assert [s["update"] for s in selector.snapshots] == [1, 2, 3]
    selector.close()


def test_selection_options_are_checked():
    selection = load("snapshot_selection")
    with pytest.raises(ValueError, match="at least one seed"):
        selection.SnapshotSelector([], PREPROCESSING)
    with pytest.raises(RuntimeError, match="no snapshot"):
        selection.SnapshotSelector([1], PREPROCESSING).best()
    for bad in (["--select-from", "1.5"], ["--select-from", "-0.1"], ["--select-snapshots", "-1"],
                ["--select-seeds", "9-3"]):  # fmt: skip
        run = subprocess.run(
            [sys.executable, str(EXAMPLES / "train.py"), *bad],
            env=ENV, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert run.returncode == 2 and bad[0] in run.stderr, bad


def test_batches_without_overlap_are_collected_when_asked_for():
    """--no-overlap: each batch is collected in the caller's thread when it is asked for, so the
    weights that collected it are the latest (policy_lag 0) and the wait is the collection."""
    ppo = load("ppo_carracing")
    engine = beta_engine(n_games=4)

    def infer(obs):
        n = len(obs)
        return np.tile([2.0, 3.0, 1.05, 2.0, 2.0, 20.0], (n, 1)), np.zeros(n)

    args = argparse.Namespace(overlap=False, collect_size=8, depth=1)
    stream = ppo.batches(engine, infer, args)
    first = next(stream)
    engine.weights_updated()
    second = next(stream)
    assert len(first) == len(second) == 8
    assert second.weights_version == first.weights_version + 1
    for batch in (first, second):
        assert batch.telemetry["policy_lag"] == 0.0
        assert batch.telemetry["wait_seconds"] >= batch.telemetry["collect_seconds"]
    stream.close()


def test_a_network_with_no_pixels_left_is_refused_by_the_parser():
    """--downsample and --first-stride that leave the last convolution nothing to read get a
    usage error naming both, not a convolution's RuntimeError at the start of training."""
    train = load("train")
    with pytest.raises(SystemExit) as exit_info:
        train.parse_args(["--downsample", "4", "--first-stride", "5"])
    assert exit_info.value.code == 2
    assert train.parse_args(["--downsample", "3", "--first-stride", "3"]).first_stride == 3


def exported_weights(path: Path) -> dict[str, torch.Tensor]:
    return dict(torch.export.load(str(path)).state_dict)


def test_average_weights_exports_the_moving_average(tmp_path):
    """--average-weights D exports the exponential moving average of the weights after each
    update, not the last update's: with D near 1 the average stays at the first update's
    weights, which a one-update run of the same seed exports; the last of three updates differs."""

    def train_run(name: str, decisions: int, *extra: str) -> dict[str, torch.Tensor]:
        out = tmp_path / name
        run = subprocess.run(
            [sys.executable, str(EXAMPLES / "train.py"), "--seed", "5", "--out", str(out),
             "--total-decisions", str(decisions), "--max-minutes", "0", "--n-games", "4",
             "--collect-size", "128", "--epochs", "1", "--minibatch-size", "64",
             "--no-overlap", "--select-seeds", "", "--eval-seeds", "", *extra],
            cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert run.returncode == 0, run.stdout + run.stderr
        return exported_weights(out / "policy.pt2")

    first = train_run("one-update", 128)
    last = train_run("three-updates", 384)
    averaged = train_run("averaged", 384, "--average-weights", "0.999999")
    assert first.keys() == last.keys() == averaged.keys()
    moved = max((first[k] - last[k]).abs().max().item() for k in first)
    assert moved > 1e-4, "three updates should move the weights"
    for name in first:
        torch.testing.assert_close(averaged[name], first[name], rtol=0, atol=1e-5)


def test_average_weights_is_checked():
    train = load("train")
    for bad in ("1", "-0.1"):
        with pytest.raises(SystemExit):
            train.parse_args(["--average-weights", bad])
    assert train.parse_args(["--average-weights", "0.95"]).average_weights == 0.95


def test_cut_is_terminal_needs_the_cut_and_reaches_the_learner(capsys):
    train = load("train")
    with pytest.raises(SystemExit):
        train.parse_args(["--cut-is-terminal"])
    assert "needs --cut-without-progress" in capsys.readouterr().err
    args = train.parse_args(["--cut-without-progress", "100", "--cut-is-terminal"])
    assert args.cut_is_terminal and not train.parse_args([]).cut_is_terminal


def test_the_entropy_price_applies_from_its_fraction(tmp_path, monkeypatch, capsys):
    """--ent-coef-from F: the PPO updates before the run's fraction F see no entropy term, those
    from F on see --ent-coef; run.json records the option as given."""
    train = load("train")
    ppo = sys.modules["ppo_carracing"]
    real_update, seen = ppo.ppo_update, []

    def spy(learner, optimizer, batch, args, *rest):
        seen.append(args.ent_coef)
        return real_update(learner, optimizer, batch, args, *rest)

    monkeypatch.setattr(ppo, "ppo_update", spy)
    record = train.main(
        ["--seed", "5", "--out", str(tmp_path / "run"), "--total-decisions", "512",
         "--max-minutes", "0", "--n-games", "4", "--collect-size", "128", "--epochs", "1",
         "--minibatch-size", "64", "--no-overlap", "--select-seeds", "", "--eval-seeds", "",
         "--ent-coef", "-0.01", "--ent-coef-from", "0.5"]
    )  # fmt: skip
    assert seen == [0.0, 0.0, -0.01, -0.01]
    assert record["options"]["ent_coef"] == -0.01
    for bad in ("1.5", "-0.1"):
        with pytest.raises(SystemExit):
            train.parse_args(["--ent-coef-from", bad])
    assert "--ent-coef-from must be within [0, 1]" in capsys.readouterr().err


def test_min_concentration_floors_each_alpha_and_beta(capsys):
    """--min-concentration s,g,b: whatever the head outputs, each dimension's alpha and beta stay
    at or above its floor (the gas's noise capped), and the initial Beta is still the one asked
    for; an initial concentration at or under its floor is refused."""
    train = load("train")
    args = train.parse_args(
        ["--min-concentration", "1,8,1", "--init-alpha", "2,15,1.05", "--init-beta", "2,10,20"]
    )
    agent = train.BetaAgent(args)
    obs = torch.zeros(2, 2, 96, 96, dtype=torch.uint8)
    with torch.no_grad():
        alpha, beta, _ = agent(obs)
        torch.testing.assert_close(alpha[0], torch.tensor([2.0, 15.0, 1.05]), atol=0.05, rtol=0)
        torch.testing.assert_close(beta[0], torch.tensor([2.0, 10.0, 20.0]), atol=0.05, rtol=0)
        agent.concentrations.bias.fill_(-50.0)  # softplus -> 0: every parameter at its floor
        alpha, beta, _ = agent(obs)
    torch.testing.assert_close(alpha[0], torch.tensor([1.0, 8.0, 1.0]), atol=1e-6, rtol=0)
    torch.testing.assert_close(beta[0], torch.tensor([1.0, 8.0, 1.0]), atol=1e-6, rtol=0)
    # The default floors are 1: the recipe's head as before.
    assert train.parse_args([]).min_concentration == (1.0, 1.0, 1.0)
    with pytest.raises(SystemExit):
        train.parse_args(["--min-concentration", "1,10,1"])  # the default gas init (3, 2)
    assert "must exceed its --min-concentration" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train.parse_args(["--min-concentration", "0.5,1,1", "--init-alpha", "2,3,1.05"])
    assert "at least 1" in capsys.readouterr().err
    # Past the head's cap a floor or a start would be clamped away; NaN and inf never parse.
    with pytest.raises(SystemExit):
        train.parse_args(
            [
                "--min-concentration",
                "1,1e5,1",
                "--init-alpha",
                "2,2e5,1.05",
                "--init-beta",
                "2,2e5,20",
            ]
        )
    assert "--min-concentration: each must be at least 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train.parse_args(["--init-beta", "2,2,2e4"])
    assert "stay under 10000" in capsys.readouterr().err
    for bad in ("nan,1,1", "1,inf,1"):
        with pytest.raises(SystemExit):
            train.parse_args(["--min-concentration", bad])
        assert "finite" in capsys.readouterr().err


def test_bf16_precision_runs_the_epochs_in_bfloat16_and_keeps_float32_elsewhere():
    """--precision bf16: the heads the PPO epochs call run their convolutions in bfloat16 (their
    outputs differ from float32's by bfloat16's rounding, not more) and return float32, and the
    weights and their gradients stay float32; --precision fp32 leaves the heads alone."""
    train = load("train")
    args = train.parse_args(["--precision", "bf16"])
    torch.manual_seed(0)
    agent = train.BetaAgent(args)
    frames = torch.randint(0, 256, (8, 2, 96, 96), dtype=torch.uint8)
    x = agent.preprocess(frames)
    precision = load("precision")
    assert precision.epoch_heads(agent, train.parse_args(["--precision", "fp32"])) is None
    heads = precision.epoch_heads(agent, args)
    seen = []
    hook = agent.trunk[0].register_forward_hook(lambda m, i, o: seen.append(o.dtype))
    low = heads(x)
    hook.remove()
    assert seen == [torch.bfloat16]
    with torch.no_grad():
        full = agent.heads(x)
    for a, b in zip(low, full, strict=True):
        assert a.dtype == torch.float32
        assert not torch.equal(a, b)
        torch.testing.assert_close(a, b, rtol=2e-2, atol=2e-2 * b.abs().max().item())
    sum(t.sum() for t in low).backward()
    assert all(p.dtype == torch.float32 and p.grad.dtype == torch.float32
               for p in agent.parameters() if p.grad is not None)  # fmt: skip
    with pytest.raises(SystemExit):
        train.parse_args(["--precision", "fp16"])


def test_auto_precision_times_a_copy_and_leaves_the_learner_and_its_random_streams_alone():
    """--precision auto times a copy of the network on frames of its own generator: the
    learner's weights, its gradients and torch's global random stream are as they were."""
    train = load("train")
    precision = load("precision")
    agent = train.BetaAgent(train.parse_args([]))
    before = {k: v.clone() for k, v in agent.state_dict().items()}
    rng = torch.get_rng_state()
    chosen, seconds = precision.pick_precision(agent, (2, 96, 96), minibatch_size=16, trials=2)
    assert chosen in ("fp32", "bf16")
    assert seconds["fp32"] > 0 and seconds["bf16"] > 0
    assert torch.equal(torch.get_rng_state(), rng)
    assert all(torch.equal(v, before[k]) for k, v in agent.state_dict().items())
    assert all(p.grad is None for p in agent.parameters())


@pytest.mark.parametrize(
    ("vendor", "flags", "expected"),
    [
        ("GenuineIntel", "sse2 avx2 avx512f avx512_bf16 amx_tile amx_bf16", "bf16"),
        ("AuthenticAMD", "sse2 avx2 avx512f avx512_bf16", "bf16"),
        ("GenuineIntel", "sse2 avx2 avx512f avx512_bf16", "fp32"),  # the Xeon bf16 slowed
        ("AuthenticAMD", "sse2 avx avx2 fma f16c", "fp32"),  # emulated: an update 16x slower
    ],
)
def test_auto_precision_follows_the_cpu_flags_without_timing(
    tmp_path, monkeypatch, vendor, flags, expected
):
    """Where the CPU's flags tell, --precision auto takes its choice from them and times
    nothing: a timed choice flips with the machine's load, and one seed would train two ways."""
    train, precision = load("train"), load("precision")
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nvendor_id\t: {vendor}\nflags\t\t: {flags}\n")

    def no_timing(*args, **kwargs):
        raise AssertionError("timed where the flags tell")

    monkeypatch.setattr(precision, "pick_precision", no_timing)
    agent = train.BetaAgent(train.parse_args([]))
    chosen, reason, seconds = precision.auto_precision(agent, (2, 96, 96), 4, cpuinfo)
    assert (chosen, seconds) == (expected, None)
    assert reason and "timed" not in reason


def test_auto_precision_times_both_where_the_flags_say_nothing(tmp_path, monkeypatch):
    """An ARM /proc/cpuinfo (no x86 flags line): the two precisions are timed, and the reason
    says so with both times."""
    train, precision = load("train"), load("precision")
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nFeatures\t: fp asimd bf16\n")
    monkeypatch.setattr(
        precision, "pick_precision", lambda *a, **k: ("bf16", {"fp32": 0.03, "bf16": 0.02})
    )
    agent = train.BetaAgent(train.parse_args([]))
    chosen, reason, seconds = precision.auto_precision(agent, (2, 96, 96), 4, cpuinfo)
    assert (chosen, seconds) == ("bf16", {"fp32": 0.03, "bf16": 0.02})
    assert reason.startswith("timed") and "20 ms in bf16, 30 ms in fp32" in reason


@pytest.mark.parametrize(
    ("fp32_s", "bf16_s", "expected"),
    [(0.030, 0.020, "bf16"), (0.030, 0.028, "fp32"), (0.020, 0.030, "fp32")],
)
def test_auto_precision_takes_bf16_only_when_it_wins_by_a_tenth(
    monkeypatch, fp32_s, bf16_s, expected
):
    """The choice follows the timed medians: bfloat16 must be more than a tenth faster."""
    train = load("train")
    precision = load("precision")
    agent = train.BetaAgent(train.parse_args([]))

    def fake_seconds(probe, heads, x, trials):
        heads(x)  # each precision's heads really run
        bf16 = getattr(heads, "__name__", "") == "bf16_heads"
        return [bf16_s if bf16 else fp32_s] * trials

    monkeypatch.setattr(precision, "minibatch_seconds", fake_seconds)
    chosen, seconds = precision.pick_precision(agent, (2, 96, 96), minibatch_size=4, trials=3)
    assert chosen == expected
    assert seconds == {"fp32": fp32_s, "bf16": bf16_s}


def test_auto_precision_keeps_fp32_where_bf16_has_no_kernels(monkeypatch):
    train = load("train")
    precision = load("precision")
    agent = train.BetaAgent(train.parse_args([]))

    def no_bf16(heads, device):
        def fail(x):
            raise RuntimeError("no bfloat16 kernel")

        return fail

    monkeypatch.setattr(precision, "autocast_heads", no_bf16)
    chosen, seconds = precision.pick_precision(agent, (2, 96, 96), minibatch_size=4, trials=1)
    assert chosen == "fp32"
    assert seconds == {}  # nothing timed: no NaN reaches run.json
    monkeypatch.setattr(precision, "flag_precision", lambda *a: None)
    assert precision.auto_precision(agent, (2, 96, 96), 4) == (
        "fp32",
        "bf16 has no kernels on this device",
        {},
    )


@pytest.mark.parametrize(
    ("flags", "native"),
    [
        ("fpu sse2 avx avx2 fma avx512f avx512_bf16", True),
        ("fpu sse2 avx avx2 amx_tile amx_bf16", True),
        ("fpu sse2 avx avx2 fma f16c", False),  # the AVX2 EPYC whose update bf16 slowed 16x
        (None, None),  # no flags line (an ARM /proc/cpuinfo): cannot tell
    ],
)
def test_native_bf16_reads_the_cpu_flags_and_warns_only_where_bf16_is_emulated(
    tmp_path, flags, native
):
    precision = load("precision")
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "processor\t: 0\nmodel name\t: test\n"
        + (f"flags\t\t: {flags}\n" if flags else "Features\t: fp asimd\n")
    )
    cpu = torch.device("cpu")
    assert precision.native_bf16(cpu, cpuinfo) is native
    warning = precision.bf16_warning(cpu, cpuinfo)
    assert (warning is not None) == (native is False)
    if warning:
        assert "--precision auto takes fp32" in warning
    assert precision.native_bf16(cpu, tmp_path / "missing") is None


def test_a_gpu_counts_as_native_only_without_emulation(monkeypatch):
    """On a GPU, bfloat16 is native only where torch says so with emulation left out (its
    default counts emulated bfloat16); a torch whose check has no such option is asked plainly."""
    precision = load("precision")
    cuda = torch.device("cuda")
    asked = []

    def supported(including_emulation=True):
        asked.append(including_emulation)
        return including_emulation  # an older GPU: bfloat16 only emulated

    monkeypatch.setattr(torch.cuda, "is_bf16_supported", supported)
    assert precision.native_bf16(cuda) is False and asked == [False]
    assert precision.flag_precision(cuda) == ("fp32", "the GPU only emulates bfloat16")
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: True)
    assert precision.native_bf16(cuda) is True
    assert precision.flag_precision(cuda) == ("bf16", "the GPU runs bfloat16 natively")


def test_a_cpu_run_put_on_fp32_takes_recipe_6_where_the_command_line_left_it_free():
    """--precision auto keeping float32 on a CPU: recipe 10's minutes were validated with
    bfloat16 only, so the options recipe 6 sets take recipe 6's values, except those given."""
    train, precision = load("train"), load("precision")
    argv = ["--gamma", "0.995", "--no-overlap"]
    args = train.parse_args(argv)
    assert precision.given_options(train.build_parser(), argv) == {"gamma", "overlap"}
    changes = precision.use_fp32_recipe(args, precision.given_options(train.build_parser(), argv))
    assert changes == {"max_minutes": 28.0, "total_decisions": 4_000_000}
    assert (args.max_minutes, args.total_decisions, args.gamma, args.overlap) == (
        28.0,
        4_000_000,
        0.995,
        False,
    )
    line = precision.fp32_recipe_line(changes)
    assert "--max-minutes 28.0 --total-decisions 4000000" in line
    given = precision.given_options(train.build_parser(), [])
    everything = precision.use_fp32_recipe(train.parse_args([]), given)
    assert everything == precision.FP32_RECIPE
    assert "--gamma 0.99 --overlap" in precision.fp32_recipe_line(everything)
    assert "kept" in precision.fp32_recipe_line({})


def test_a_run_that_auto_puts_on_fp32_trains_recipe_6_and_says_so(tmp_path, monkeypatch, capsys):
    """main(): where --precision auto keeps float32 on a CPU, the run takes recipe 6's discount
    and overlap (left free here) and keeps the budget it was given; run.json records them."""
    train = load("train")
    monkeypatch.setattr(train, "auto_precision", lambda *a, **k: ("fp32", "no bf16 here", None))
    record = train.main(
        ["--seed", "5", "--out", str(tmp_path / "run"), "--total-decisions", "256",
         "--max-minutes", "0", "--n-games", "4", "--collect-size", "128", "--epochs", "1",
         "--minibatch-size", "64", "--select-seeds", "", "--eval-seeds", "", "--device", "cpu"]
    )  # fmt: skip
    options = record["options"]
    assert (options["gamma"], options["overlap"], options["precision"]) == (0.99, True, "fp32")
    assert (options["max_minutes"], options["total_decisions"]) == (0, 256)
    assert "recipe 6's options" in capsys.readouterr().out
