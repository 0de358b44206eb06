"""evo evaluate: RELINE's Table 1 (episodes with at least n bugs spotted) and low-FPS points."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evo.run.config import parse_experiment
from evo.run.players import EvaluationError, load_player
from evo.report.studies.reline import _spotted, _steps, evaluate
from evo.run.kinds.evolve import Evolve
from games.core.record import Rollout, RolloutBatch

CARTPOLE = {
    "name": "tiny_reline",
    "seed": 1,
    "game": {"name": "cartpole_perf", "kwargs": {"heavy_ms": 2.0, "max_steps": 200}},
    "network": {"hidden": [8]},
    "search": {"population": 4, "offspring": 4, "episodes": 1, "hv_ref": [0, -1]},
    "budget": {"generations": 2},
    "objectives": [{"name": "winning"}, {"name": "fps_drop", "kwargs": {"floor_ms": 1.0}}],
    "oracles": [{"name": "performance", "kwargs": {"floor_ms": 1.0}}],
    "finetune": {"algorithm": "none"},
    "parallel": {"backend": "serial"},
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A tiny RELINE run and a tiny random run of the same game."""
    out = {}
    for name, policy in (("tiny_reline", "mlp"), ("tiny_random", "random")):
        config = {**CARTPOLE, "name": name, "search": {**CARTPOLE["search"], "policy": policy}}
        path = tmp_path_factory.mktemp(name) / "run"
        Evolve(parse_experiment(config), path).run()
        out[name] = path
    return out


def test_evaluate_writes_table_1_and_the_low_fps_files(runs: dict[str, Path], tmp_path: Path) -> None:
    result = evaluate([runs["tiny_reline"], runs["tiny_random"]], 30, out=tmp_path, warmup=10, n_jobs=1)
    table = pd.read_csv(tmp_path / "evaluation.csv")
    assert list(table["agent"]) == ["tiny_reline", "tiny_random"]
    assert (table["episodes"] == 30).all() and result.injected == 2
    assert (table["at_least_1"] >= table["at_least_2"]).all()
    assert result.threshold_ms >= 1.0  # the oracle's floor
    episodes = pd.read_csv(tmp_path / "episodes.csv")
    assert len(episodes) == 60 and set(episodes["bugs_spotted"]) <= {0, 1, 2}
    for agent, rows in episodes.groupby("agent"):
        row = table.set_index("agent").loc[agent]
        assert row["at_least_1"] == (rows["bugs_spotted"] >= 1).sum()
    assert (tmp_path / "frame_times.png").stat().st_size > 0
    pairs = pd.read_csv(tmp_path / "pairwise.csv")
    assert set(pairs["metric"]) == {"bugs spotted per episode", "frame ms at low-FPS points"}
    assert len(pairs) == 2 and set(pairs["a"]) == {"tiny_reline"}


def test_same_seed_same_episodes(runs: dict[str, Path], tmp_path: Path) -> None:
    a = evaluate([runs["tiny_reline"]], 12, out=tmp_path / "a", threshold_ms=1.0, n_jobs=1).episodes
    b = evaluate([runs["tiny_reline"]], 12, out=tmp_path / "b", threshold_ms=1.0, n_jobs=1).episodes
    cols = ["seed", "return", "length", "bugs_spotted"]
    pd.testing.assert_frame_equal(a[cols], b[cols])


def _cart_rollout(xs: list[float], frame_ms: list[float]) -> Rollout:
    feats = np.array([[x, 0.0] for x in xs])
    n = len(xs) - 1
    return Rollout(policy=0, episode_seed=0, actions=np.zeros(n, dtype=np.int64), rewards=np.ones(n),
                   features=feats, frame_ms=np.array(frame_ms), terminated=False, truncated=True)


def test_a_bug_is_spotted_only_by_a_slow_frame_ending_in_its_interval(runs: dict[str, Path]) -> None:
    agent = load_player(runs["tiny_reline"])
    agent.rollouts = RolloutBatch.from_rollouts([
        _cart_rollout([0.40, 0.47, 0.52], [2.1, 0.3]),     # slow frame ended at 0.47: bug 1
        _cart_rollout([-0.40, -0.47, -0.52], [0.3, 0.4]),  # in bug 0's interval, but fast
        _cart_rollout([0.0, 0.2, 0.3], [3.0, 3.0]),        # slow, but nowhere near a bug
        _cart_rollout([-0.46, 0.0, 0.46], [2.0, 2.0]),     # ends in bug 1 (slow); bug 0 only at reset
    ])
    steps = _steps(agent, agent.built.spec.feature_bins, 1.0)
    assert _spotted(agent, steps) == [{1}, set(), set(), {1}]


def test_the_best_policy_is_best_on_fps_drop(runs: dict[str, Path]) -> None:
    from evo.run.checkpoint import latest_checkpoint, load_checkpoint

    agent = load_player(runs["tiny_reline"])
    F = load_checkpoint(latest_checkpoint(runs["tiny_reline"])).F
    best = F[:, 1].max()
    chosen = int(np.flatnonzero(load_checkpoint(latest_checkpoint(runs["tiny_reline"])).policy_ids == agent.ids[0])[0])
    assert F[chosen, 1] == best
    assert len(load_player(runs["tiny_reline"], select="front").ids) >= 1
    with pytest.raises(EvaluationError, match="--objective 'coverage' is not an objective"):
        load_player(runs["tiny_reline"], objective="coverage")


def test_bad_input_is_one_line(bad_input, runs: dict[str, Path]) -> None:
    assert "not a run directory" in bad_input(["evaluate", "nowhere"])
    assert "--episodes must be at least 1" in bad_input(["evaluate", str(runs["tiny_reline"]), "--episodes", "0"])


def test_best_is_chosen_again_on_fresh_episodes(runs: dict[str, Path]) -> None:
    """rescore: every final policy plays fresh episodes; the one best on fps_drop there
    (the run's own objective, with the run's threshold) is the agent."""
    from evo.run.players import play_tasks, rescore
    from evo.run.parallel import Executor, ParallelConfig
    from evo.search.tasks import PlayTask
    from games.common.seeds import EPISODE_SEED_MAX

    agent = load_player(runs["tiny_reline"])
    genomes, ids = agent.candidates
    with Executor(ParallelConfig(backend="serial")) as ex:
        rescore(agent, ex, 6, seed=11, objective=None)
        rng = np.random.default_rng(11)
        task = PlayTask(agent.built.factory, agent.kind.spec(genomes), ids,
                        rng.integers(0, EPISODE_SEED_MAX, size=len(ids)), 6)
        batch = play_tasks(ex, [task], None, "again")
    fps = agent.built.objectives[1]
    scores = [fps.score(batch[p * 6:(p + 1) * 6]) for p in range(len(ids))]
    chosen = int(np.flatnonzero(ids == agent.ids[0])[0])
    assert len(agent.ids) == 1 and scores[chosen] == max(scores)


@pytest.fixture
def warmup_frames(monkeypatch: pytest.MonkeyPatch) -> list[np.ndarray]:
    """The frame times each evaluation calibrates its threshold on, in call order."""
    import evo.report.studies.reline
    from oracles.frame_threshold import slow_threshold

    seen: list[np.ndarray] = []

    def spy(frame_ms: np.ndarray, *args: float) -> float:
        seen.append(np.asarray(frame_ms))
        return slow_threshold(frame_ms, *args)

    monkeypatch.setattr(evo.report.studies.reline, "slow_threshold", spy)
    return seen


def test_baseline_agent_plays_the_warm_up(runs: dict[str, Path], tmp_path: Path,
                                          warmup_frames: list[np.ndarray]) -> None:
    """With --baseline the threshold comes from the baseline agent's own warm-up episodes (as
    many frames as they have steps), not from random play's; a random-search run as baseline
    is random play."""
    from evo.run.players import episode_tasks, play_tasks, rescore
    from evo.run.parallel import Executor, ParallelConfig
    from oracles.frame_threshold import slow_threshold

    base = evaluate([runs["tiny_random"]], 5, out=tmp_path / "a", warmup=10, baseline=runs["tiny_reline"], n_jobs=1)
    random = evaluate([runs["tiny_random"]], 5, out=tmp_path / "b", warmup=10, n_jobs=1)
    evaluate([runs["tiny_reline"]], 5, out=tmp_path / "c", warmup=10, baseline=runs["tiny_random"], n_jobs=1)
    assert list(pd.read_csv(tmp_path / "a" / "evaluation.csv")["calibration"]) == ["tiny_reline (10 episodes)"]
    assert list(random.table["calibration"]) == ["random play (10 episodes)"]
    agent = load_player(runs["tiny_reline"])
    with Executor(ParallelConfig(backend="serial")) as ex:  # evaluate's warm-up, seed 0
        rescore(agent, ex, 10, seed=2, objective=None)
        warm = play_tasks(ex, episode_tasks(agent, 10, seed=1), None, "warm-up")
    baseline_frames, random_frames, random_baseline_frames = warmup_frames
    assert len(baseline_frames) == warm.valid.sum() != len(random_frames)
    assert len(random_baseline_frames) == len(random_frames)
    assert base.threshold_ms == slow_threshold(baseline_frames, 5.0, 1.0)


def test_same_seed_same_threshold_with_a_baseline(runs: dict[str, Path], tmp_path: Path,
                                                   warmup_frames: list[np.ndarray]) -> None:
    """Frame times are measured, so what a seed fixes is the warm-up episodes; here their
    frames take microseconds and the threshold is the oracle's floor both times."""
    a = evaluate([runs["tiny_reline"]], 5, out=tmp_path / "a", warmup=10, baseline=runs["tiny_reline"], n_jobs=1)
    b = evaluate([runs["tiny_reline"]], 5, out=tmp_path / "b", warmup=10, baseline=runs["tiny_reline"], n_jobs=1)
    assert len(warmup_frames[0]) == len(warmup_frames[1])  # the same warm-up episodes
    assert a.threshold_ms == b.threshold_ms and a.calibration == b.calibration


def test_a_baseline_on_another_game_is_refused(runs: dict[str, Path], tmp_path: Path) -> None:
    import re
    import shutil

    import yaml

    other = tmp_path / "other"
    shutil.copytree(runs["tiny_random"], other)
    config = yaml.safe_load((other / "config.yaml").read_text())
    config["game"]["kwargs"]["max_steps"] = 100
    (other / "config.yaml").write_text(yaml.safe_dump(config))
    with pytest.raises(EvaluationError, match=f"baseline {re.escape(str(other))} plays .*max_steps', 100.*, expected"):
        evaluate([runs["tiny_reline"]], 5, out=tmp_path / "out", warmup=10, baseline=other, n_jobs=1)


def test_baseline_bad_input_is_one_line(bad_input, runs: dict[str, Path]) -> None:
    reline = str(runs["tiny_reline"])
    assert "nowhere: not a run directory" in bad_input(["evaluate", reline, "--baseline", "nowhere"])
    assert "--baseline and --threshold-ms both set the slow-frame threshold" in bad_input(
        ["evaluate", reline, "--baseline", str(runs["tiny_random"]), "--threshold-ms", "1"])


def test_temperature_changes_how_policies_play_not_random_play(runs: dict[str, Path], tmp_path: Path) -> None:
    """--temperature 0 plays the policy greedily: other episodes than sampling gives, the
    same ones again for the same seed; the random agent plays its uniform actions either way."""
    dirs = [runs["tiny_reline"], runs["tiny_random"]]
    greedy = evaluate(dirs, 20, out=tmp_path / "greedy", warmup=10, temperature=0.0, n_jobs=1)
    again = evaluate(dirs, 20, out=tmp_path / "again", warmup=10, temperature=0.0, n_jobs=1)
    sampled = evaluate(dirs, 20, out=tmp_path / "sampled", warmup=10, n_jobs=1)
    table = pd.read_csv(tmp_path / "greedy" / "evaluation.csv").set_index("agent")
    assert table.loc["tiny_reline", "temperature"] == 0.0 and np.isnan(table.loc["tiny_random", "temperature"])
    assert list(sampled.table["temperature"].fillna(-1)) == [1.0, -1]
    cols = ["seed", "length", "return"]

    def episodes(result, agent: str) -> pd.DataFrame:
        return result.episodes.loc[result.episodes["agent"] == agent, cols].reset_index(drop=True)

    pd.testing.assert_frame_equal(episodes(greedy, "tiny_reline"), episodes(again, "tiny_reline"))
    pd.testing.assert_frame_equal(episodes(greedy, "tiny_random"), episodes(sampled, "tiny_random"))
    assert not episodes(greedy, "tiny_reline")["length"].equals(episodes(sampled, "tiny_reline")["length"])


def test_a_negative_temperature_is_one_line(bad_input, runs: dict[str, Path]) -> None:
    assert "--temperature must be at least 0 (0: greedy, 1: as trained), got -1.0" in bad_input(
        ["evaluate", str(runs["tiny_reline"]), "--temperature", "-1"])
