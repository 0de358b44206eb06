"""``device: cuda`` reaches every network: the detector, encoder, texture judge, RND, the
population's forward pass and PPO fine-tuning give on the GPU what they give on the CPU,
within floating-point tolerance (the same boxes and actions, numbers equal to 1e-4, relative
where they are large).

Each test needs a GPU and is skipped, with the reason, where torch sees none (CI has none:
``benchmarks/device_check.sh`` runs these on a GPU machine)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from games.common.device import torch_device

GPU = pytest.mark.skipif(not torch.cuda.is_available(),
                         reason="torch sees no CUDA device here: the GPU paths are checked on a machine with one")
TOL = 1e-4


def test_a_cuda_index_this_machine_lacks_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs anywhere: a machine with one GPU refuses ``cuda:3`` by name."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    with pytest.raises(ValueError, match=r"^cuda:3 requested but there are 1 CUDA devices here$"):
        torch_device("cuda:3")


@pytest.fixture(scope="module")
def park_frames() -> np.ndarray:
    """``[164, 3, 120, 160]`` uint8 frames of the park's evaluation level, random walks."""
    pytest.importorskip("vizdoom")
    from games import GameFactory

    game = GameFactory(name="doom_park", kwargs=(("level_seed", 0), ("max_steps", 200), ("preset", "small"))
                       ).make_vector(4)
    try:
        obs, _ = game.reset([0, 1, 2, 3])
        frames, rng = [obs], np.random.default_rng(0)
        for _ in range(40):
            frames.append(game.step(rng.integers(0, game.game_spec.n_actions, 4)).obs)
    finally:
        game.close()
    return np.concatenate(frames)


@GPU
def test_the_detector_finds_the_same_boxes_on_the_gpu(park_frames: np.ndarray) -> None:
    from games.perception.detector import load_detector

    cpu, gpu = load_detector().detect(park_frames), load_detector(device="cuda").detect(park_frames)
    assert sum(len(d) for d in cpu) > 20  # the walks saw objects
    for a, b in zip(cpu, gpu):
        assert np.array_equal(a.boxes, b.boxes) and np.array_equal(a.types, b.types)
        assert np.allclose(a.scores, b.scores, atol=TOL)
        assert all(np.array_equal(x, y) for x, y in zip(a.crops, b.crops))


@GPU
def test_the_encoder_and_the_texture_judge_agree_on_the_gpu(park_frames: np.ndarray) -> None:
    from games.perception.detector import load_detector
    from games.perception.encoder import downscale, encode, load_encoder
    from games.perception.texture import load_texture_judge

    encoder, frames64 = load_encoder(), downscale(park_frames)
    assert np.allclose(encode(encoder, frames64), encode(encoder, frames64, device="cuda"), atol=TOL)
    found = [d for d in load_detector().detect(park_frames) if len(d)]
    crops = [c for d in found for c in d.crops]
    names = ("barrel", "pillar", "stump", "lamp")
    types = [names[int(t)] for d in found for t in d.types]
    cpu = load_texture_judge().probabilities(crops, types, 120)
    gpu = load_texture_judge(device="cuda").probabilities(crops, types, 120)
    assert len(crops) > 20 and np.allclose(cpu, gpu, atol=TOL)


@GPU
def test_rnd_novelty_learns_and_scores_the_same_on_the_gpu(park_frames: np.ndarray) -> None:
    from games.core.base import GameSpec
    from games.perception.encoder import downscale
    from objectives.rnd_novelty import RndNovelty, RndNoveltyConfig
    from games.core.component import Context

    spec = GameSpec((3, 120, 160), 8, (), (), (), (), 200, obs_dtype="uint8")
    frames64 = downscale(park_frames)
    novelty = []
    for device in ("cpu", "cuda"):
        rnd = RndNovelty(spec, RndNoveltyConfig(source="obs"), Context(seed=5, device=device))
        before = rnd.novelty(frames64)
        rnd._remember(rnd._features(frames64))  # what update does with a generation's frames
        rnd._train(np.random.default_rng(0))
        novelty.append((before, rnd.novelty(frames64)))
    for cpu, gpu in zip(novelty[0], novelty[1]):  # before and after training
        assert np.allclose(cpu, gpu, rtol=TOL, atol=TOL)
    assert novelty[0][1].mean() < novelty[0][0].mean()  # it learned the frames


@GPU
def test_the_population_plays_and_ppo_tunes_the_same_on_the_gpu() -> None:
    from evo.search.agents.population import PopulationAgent
    from evo.search.finetune import finetune
    from evo.search.finetune.ppo import PPOConfig
    from evo.search.play import draw_episodes
    from evo.search.policy import PolicySpec
    from games import GameFactory

    factory = GameFactory(name="block_maze", kwargs=(("maze_seed", 0), ("preset", "small")))
    game = factory.make_vector(8)
    spec = PolicySpec(int(np.prod(game.game_spec.obs_shape)), game.game_spec.n_actions, (32,))
    genomes = spec.init_genomes(4, np.random.default_rng(0))
    draws = draw_episodes([1, 2, 3, 4], 2, game.game_spec.max_steps, game.game_spec.n_actions)
    obs = np.random.default_rng(1).standard_normal((8, spec.obs_dim)).astype(np.float32)
    played = [PopulationAgent(genomes, spec, 2, draws.gumbel, device=d).act(obs, obs, {}, 0) for d in ("cpu", "cuda")]
    assert np.array_equal(played[0][0], played[1][0]) and np.allclose(played[0][1], played[1][1], atol=1e-5)

    def reward(rollouts, horizon: int) -> np.ndarray:
        return np.ones((len(rollouts), horizon))

    tuned = [finetune(genomes, spec, game, "ppo", PPOConfig(updates=2, episodes=2), reward, [7, 8, 9, 10],
                      [0, 1, 2, 3], device=d)[0] for d in ("cpu", "cuda")]
    game.close()
    assert not np.array_equal(tuned[0], genomes)  # it learned
    assert np.allclose(tuned[0], tuned[1], atol=TOL)


@GPU
def test_the_mask_and_the_downscale_on_the_gpu_are_the_hosts_bytes(park_frames: np.ndarray) -> None:
    from games.perception.base import od_mask
    from games.perception.detector import load_detector
    from games.perception.device_frames import downscale_tensor, od_mask_tensor
    from games.perception.encoder import downscale

    boxes = [d.boxes for d in load_detector().detect(park_frames)]
    on = torch.from_numpy(park_frames).cuda()
    masked = od_mask_tensor(on, boxes)
    assert np.array_equal(masked.cpu().numpy(), od_mask(park_frames, boxes))
    assert np.array_equal(downscale_tensor(masked).cpu().numpy(), downscale(od_mask(park_frames, boxes)))


@GPU
def test_detect_and_encode_on_the_gpu_play_the_hosts_frames() -> None:
    """The step's frames uploaded once, masked and shrunk on the GPU, the host's copy made
    while the GPU works on: the same boxes and 64x64 frames, features within 1e-4."""
    pytest.importorskip("vizdoom")
    from games import GameFactory

    seen = {}
    for device in ("cpu", "cuda"):
        factory = GameFactory(name="doom_park", kwargs=(("level_seed", 0), ("max_steps", 50), ("preset", "small")),
                              wrappers=(("detect", (("device", device),)), ("encode", (("device", device),))))
        game = factory.make_vector(8)
        try:
            steps = [game.reset(list(range(8)))[0]]
            rng = np.random.default_rng(0)
            for _ in range(12):
                out = game.step(rng.integers(0, game.game_spec.n_actions, 8))
                steps.append((out.obs, [d.boxes for d in out.info["detections"]], np.stack(out.info["frame64"]),
                              game.game.host_frames.copy()))
            seen[device] = steps
            if device == "cuda":
                assert game.game.hand_over and game.game.frames.is_cuda
        finally:
            game.close()
    assert np.allclose(seen["cpu"][0], seen["cuda"][0], atol=TOL)
    for (obs_c, boxes_c, f64_c, masked_c), (obs_g, boxes_g, f64_g, masked_g) in zip(seen["cpu"][1:], seen["cuda"][1:]):
        assert all(np.array_equal(a, b) for a, b in zip(boxes_c, boxes_g))
        assert np.array_equal(masked_c, masked_g) and np.array_equal(f64_c, f64_g)
        assert np.allclose(obs_c, obs_g, atol=TOL)
