"""PPGTA's RND-ensemble novelty on park frames: familiar frames are worth less after the
predictors trained on them, a checkpoint resumes it exactly, and it reads the frames it is
configured to read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

pytest.importorskip("vizdoom")

from evo.search.agents.uniform import UniformAgent  # noqa: E402
from evo.run.checkpoint import Checkpoint, load_checkpoint, save_checkpoint  # noqa: E402
from evo.search.play import draw_episodes, play  # noqa: E402
from games.core.component import Context  # noqa: E402
from games.doom.park.doom_park import DoomParkVector  # noqa: E402
from games.core.record import RolloutBatch  # noqa: E402
from games.perception.encode_wrapper import Encode  # noqa: E402
from games.core.wrappers import wrapped_spec  # noqa: E402
from objectives import build_objectives  # noqa: E402
from objectives.rnd_novelty import RndNovelty  # noqa: E402


def park_batch(level: int, seed: int, copies: int = 4, steps: int = 30, encode: bool = False,
               columns: frozenset[str] = frozenset({"obs"})) -> RolloutBatch:
    """Uniform random play on a park level (frames as observations, or encoded)."""
    game: Any = DoomParkVector(copies, level_seed=level, max_steps=steps)
    if encode:
        game = Encode(game)
    try:
        draws = draw_episodes(range(seed, seed + copies), 1, steps, 9)
        return play(game, draws.seeds, np.arange(copies), UniformAgent(draws.gumbel), columns=columns).rollouts
    finally:
        game.close()


@pytest.fixture(scope="module")
def seen() -> RolloutBatch:
    return park_batch(3, 0)


@pytest.fixture(scope="module")
def unseen() -> RolloutBatch:
    return park_batch(4, 100)


def rnd(spec: Any = None, seed: int = 11, **kwargs: Any) -> RndNovelty:
    torch.set_num_threads(1)
    if spec is None:
        spec = wrapped_spec(DoomParkVector(1).game_spec, [])
    (objective,) = build_objectives([("rnd_novelty", kwargs)], spec, Context(seed=seed))
    assert isinstance(objective, RndNovelty) and objective.sense == "max"
    return objective


@pytest.fixture(scope="module")
def park_spec() -> Any:
    game = DoomParkVector(1)
    game.close()
    return game.game_spec


def test_novelty_falls_on_frames_the_predictors_trained_on(park_spec, seen: RolloutBatch, unseen: RolloutBatch) -> None:
    objective = rnd(park_spec)
    assert objective.source == "obs" and objective.requires == frozenset({"obs"})
    frames = lambda batch: objective._frames(batch.obs, batch.info, batch.valid)  # noqa: E731
    first = objective.novelty(frames(seen)).mean()
    for _ in range(4):
        objective.update(seen)
    assert objective.novelty(frames(seen)).mean() < 0.2 * first
    assert objective.novelty(frames(seen)).mean() < 0.5 * objective.novelty(frames(unseen)).mean()
    # Per policy: the score sums its steps' novelty, which is what the dense reward pays.
    assert objective.score(seen[:1]) == pytest.approx(objective.step_rewards(seen[0]).sum())
    assert objective.step_rewards(seen[0]).shape == (seen.lengths[0],)


def test_a_checkpoint_resumes_the_predictors_exactly(tmp_path: Path, park_spec, seen: RolloutBatch,
                                                     unseen: RolloutBatch) -> None:
    objective = rnd(park_spec, buffer=64, batch_size=32)
    objective.update(seen)
    save_checkpoint(tmp_path, Checkpoint(np.zeros((1, 0), np.float32), np.zeros(1), np.zeros((1, 1)),
                                         {"generation": 0, "objectives": [objective.state_dict()]}))
    (path,) = (tmp_path / "checkpoints").glob("*.pt")
    resumed = rnd(park_spec, buffer=64, batch_size=32)
    assert resumed.score(unseen) != objective.score(unseen)  # untrained until loaded
    resumed.load_state_dict(load_checkpoint(path).meta["objectives"][0])  # torch.load(weights_only=True)
    assert resumed.score(unseen) == objective.score(unseen)
    for batch in (unseen, seen):  # the next generations go on as they would have
        objective.update(batch)
        resumed.update(batch)
    assert resumed.score(unseen) == objective.score(unseen)
    np.testing.assert_array_equal(resumed.step_rewards(seen[1]), objective.step_rewards(seen[1]))
    assert resumed.filled == objective.filled == 64
    assert resumed.tables()["rnd_novelty"].equals(objective.tables()["rnd_novelty"])
    assert len(objective.history) == 3 and objective.history[0]["frames"] == seen.valid.sum()


def test_the_seed_draws_the_networks(park_spec, seen: RolloutBatch) -> None:
    assert rnd(park_spec, seed=1).score(seen) == rnd(park_spec, seed=1).score(seen)
    assert rnd(park_spec, seed=1).score(seen) != rnd(park_spec, seed=2).score(seen)


def test_feature_observations_are_read_not_encoded_again(park_spec) -> None:
    spec = wrapped_spec(park_spec, [("encode", {})])
    objective = rnd(spec)
    assert objective.source == "features" and objective.requires == frozenset({"obs"})
    columns = frozenset({"obs", "info.frame64"})
    batch = park_batch(3, 0, copies=2, steps=10, encode=True, columns=columns)
    # The numbers of encoding the 64x64 frames the wrapper published (to rounding: oneDNN's
    # convolutions sum in another order for another batch size).
    again = rnd(spec, source="frame64")
    assert again.requires == frozenset({"info.frame64"})
    assert objective.score(batch) == pytest.approx(again.score(batch), rel=1e-6) and again.score(batch) > 0
    np.testing.assert_allclose(objective.step_rewards(batch[1]), again.step_rewards(batch[1]), rtol=1e-5)
    assert objective.step_rewards(batch[1]).shape == (10,)
    objective.update(batch)
    again.update(batch)
    assert objective.score(batch) == pytest.approx(again.score(batch), rel=1e-4)
    with pytest.raises(ValueError, match="the encode wrapper publishes"):
        again.score(park_batch(3, 0, copies=1, steps=5, columns=frozenset({"info.frame64"})))
    with pytest.raises(ValueError, match=r"objectives\[0\] \(rnd_novelty\): rnd_novelty source obs needs uint8 RGB"):
        rnd(spec, source="obs")


def test_features_of_another_encoder_are_not_read(park_spec, tmp_path: Path) -> None:
    from games.perception.encoder import InverseDynamics, save_model

    torch.manual_seed(0)
    other = tmp_path / "other.pt"
    save_model(InverseDynamics(9), other, {})
    spec = wrapped_spec(park_spec, [("encode", {"weights": str(other)})])
    assert rnd(spec).source == "frame64"  # auto: the shipped encoder would misread them
    with pytest.raises(ValueError, match=r"rnd_novelty source features needs observations made by its own encoder"):
        rnd(spec, source="features")
    # Any wrapper after encode makes the observations something else.
    stacked = wrapped_spec(park_spec, [("encode", {}), ("frame_stack", {"k": 2})])
    assert stacked.obs_encoder == "" and rnd(stacked).source == "frame64"


def test_policies_scored_on_threads_score_as_in_turn(park_spec, seen: RolloutBatch, unseen: RolloutBatch) -> None:
    """The loop scores RND's policies on threads (``scores_on_threads``); each number is,
    bit for bit, the one scoring them one after the other gives, frames encoded or not."""
    from concurrent.futures import ThreadPoolExecutor

    policies = [seen[i:i + 1] for i in range(len(seen))] + [unseen[i:i + 1] for i in range(len(unseen))]
    for objective in (rnd(park_spec), rnd(park_spec, source="frame64")):
        if objective.source == "frame64":
            policies = [park_batch(3, s, copies=1, steps=12, encode=True,
                                   columns=frozenset({"info.frame64"})) for s in range(4)]
        objective.update(policies[0])
        in_turn = [objective.score(p) for p in policies]
        with ThreadPoolExecutor(4) as pool:
            on_threads = list(pool.map(objective.score, policies))
        assert objective.scores_on_threads and on_threads == in_turn and min(in_turn) > 0
