"""The preference-KL objective: PPGTA's style reward -KL(pi_explore || pi_pref), its alpha
schedule, and the objective on real park play (the imitation policy itself scores best)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("vizdoom")

from evo.search.agents.imitation import ImitationSpec  # noqa: E402
from evo.search.agents.uniform import UniformAgent  # noqa: E402
from evo.search.play import draw_episodes, play  # noqa: E402
from games.doom.park.doom_park import DoomParkVector  # noqa: E402
from objectives import build_objectives  # noqa: E402
from objectives.preference_kl import alpha_schedule, style_rewards  # noqa: E402
from tests.games.perception.imitation_data import make_tiny_demos, make_tiny_policy  # noqa: E402

STEPS = 16


def test_style_reward_is_minus_the_kl_from_the_explorer_to_the_preferred_policy() -> None:
    q = np.array([[0.5, 0.25, 0.25], [0.1, 0.1, 0.8]])
    assert style_rewards(q, q) == pytest.approx([0.0, 0.0], abs=1e-12)
    p = np.array([[1.0, 0.0, 0.0], [1 / 3, 1 / 3, 1 / 3]])
    expected = [np.log(0.5), -(np.log(1 / 3) * 3 / 3 - (np.log(0.1) + np.log(0.1) + np.log(0.8)) / 3)]
    assert style_rewards(p, q) == pytest.approx(expected)  # one-hot explorer: log pi_pref(a)
    assert (style_rewards(p, q) <= 0).all()
    # An action the tester never takes costs a finite amount.
    assert np.isfinite(style_rewards(np.array([[0.0, 1.0]]), np.array([[1.0, 0.0]]))).all()


def test_alpha_drops_when_novelty_falls_and_climbs_back_when_it_rises() -> None:
    novelty = np.array([1.0, 0.8, 0.6, 0.4, 0.2, 0.0, -0.2, -0.4, -0.45, -0.4, -0.3, -0.2, -0.1])
    alpha = alpha_schedule(novelty)
    # Falls of 0.2 (< -0.1): down 0.05 each, floored at 0.5; a fall of 0.05 changes nothing;
    # rises: up 0.1 each, capped at 0.8.
    assert alpha.tolist() == pytest.approx([0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5, 0.5, 0.5, 0.6, 0.7, 0.8, 0.8])
    assert alpha_schedule(np.array([0.3, 0.25, 0.2])).tolist() == pytest.approx([0.8, 0.8, 0.8])


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pref")
    return make_tiny_policy(make_tiny_demos(folder / "demos"), folder / "imitation.pt", epochs=2)


@pytest.fixture(scope="module")
def park_play(weights: Path):
    """Two episodes of the imitation agent and two of uniform random play on park level 3."""
    game = DoomParkVector(2, level_seed=3, max_steps=STEPS)
    try:
        draws = draw_episodes([11], 2, STEPS, 9)
        columns = frozenset({"obs", "probs"})
        imitation = ImitationSpec((3, 120, 160), str(weights)).build(2, draws.gumbel)
        preferred = play(game, draws.seeds, [0, 0], imitation, columns=columns).rollouts
        uniform = play(game, draws.seeds, [1, 1], UniformAgent(draws.gumbel), columns=columns).rollouts
    finally:
        game.close()
    return game.game_spec, preferred, uniform


def test_the_preferred_policy_scores_best_and_random_play_scores_below(weights: Path, park_play) -> None:
    spec, preferred, uniform = park_play
    (objective,) = build_objectives([("preference_kl", {"weights": str(weights), "novelty": None})], spec)
    assert objective.requires == {"obs", "probs"}
    # Acting from pi_pref itself: KL 0 at every step.
    assert objective.score(preferred) == pytest.approx(0.0, abs=1e-5)
    assert objective.score(uniform) < -0.05
    rewards = objective.step_rewards(uniform.rollout(0))
    assert rewards.shape == (STEPS,) and (rewards <= 1e-9).all()


def test_the_dense_reward_mixes_novelty_by_the_alpha_schedule(weights: Path, park_play) -> None:
    spec, _, uniform = park_play
    entry = ("preference_kl", {"weights": str(weights), "novelty": {"members": 3, "buffer": 64, "epochs": 1}})
    (objective,) = build_objectives([entry], spec)
    (style_only,) = build_objectives([("preference_kl", {"weights": str(weights), "novelty": None})], spec)
    rollout = uniform.rollout(1)
    novelty = objective.novelty.step_rewards(rollout)
    alpha = alpha_schedule(novelty)
    expected = alpha * style_only.step_rewards(rollout) + (1 - alpha) * novelty
    np.testing.assert_allclose(objective.step_rewards(rollout), expected)
    # The novelty inside learns in update, and its state travels with the objective's.
    objective.update(uniform)
    state = objective.state_dict()
    (restored,) = build_objectives([entry], spec)
    restored.load_state_dict(state)
    np.testing.assert_allclose(restored.step_rewards(rollout), objective.step_rewards(rollout))
    assert "preference_kl_novelty" in objective.tables()


def test_options_that_do_not_fit_are_one_line(weights: Path, park_play, tmp_path: Path) -> None:
    spec = park_play[0]
    with pytest.raises(ValueError, match="alpha_min 0.9 is above alpha 0.8"):
        build_objectives([("preference_kl", {"weights": str(weights), "alpha_min": 0.9})], spec)
    with pytest.raises(ValueError, match="evo vision train imitation"):
        build_objectives([("preference_kl", {"weights": str(tmp_path / "none.pt")})], spec)


def test_with_the_encode_wrapper_it_reads_the_published_64x64_frames(weights: Path, park_play) -> None:
    import dataclasses

    from games.perception.encode_wrapper import frames_column
    from games.perception.encoder import downscale

    spec, _, uniform = park_play
    after = np.stack([frames_column(downscale(uniform.obs[i, 1:].reshape(-1, 3, 120, 160))) for i in range(2)])
    record = dataclasses.replace(uniform, obs=None, info={"frame64": after})
    kwargs = {"weights": str(weights), "novelty": None}
    (from_obs,) = build_objectives([("preference_kl", kwargs)], spec)
    (from_info,) = build_objectives([("preference_kl", {**kwargs, "source": "frame64"})], spec)
    assert from_info.requires == {"probs", "info.frame64"}
    a, b = from_obs.step_rewards(uniform.rollout(0)), from_info.step_rewards(record.rollout(0))
    # The reset frame is not published: only the first steps, whose window holds it, differ.
    np.testing.assert_allclose(a[4:], b[4:], atol=0.02)
    assert from_info.score(record) < -0.05
