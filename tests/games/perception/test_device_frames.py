"""The OD mask and the 64x64 downscale on tensors (what a GPU runs) give the host's bytes, and
the ``detect`` and ``encode`` wrappers' tensor path plays what their host path plays.

These run the tensor forms on the CPU; ``tests/evo/run/test_device_gpu.py`` runs them on a GPU."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from games.perception import device_frames
from games.perception.base import od_mask
from games.perception.device_frames import downscale_tensor, od_mask_tensor
from games.perception.encoder import downscale


def frames(n: int, h: int = 120, w: int = 160, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (n, 3, h, w), dtype=np.uint8)


def test_the_mask_on_tensors_is_the_hosts_byte_for_byte() -> None:
    x = frames(12)
    rng = np.random.default_rng(1)
    # Boxes inside, across the edges and wholly outside the frame, none in some frames.
    boxes = [rng.integers(-40, 180, (int(rng.integers(0, 5)), 4)) for _ in range(12)]
    boxes[3] = np.zeros((0, 4), dtype=np.int32)
    masked = od_mask_tensor(torch.from_numpy(x), boxes).numpy()
    assert np.array_equal(masked, od_mask(x, boxes))
    assert (masked != x).any() and (masked == x).any()  # grey outside, colour inside
    nothing = [np.zeros((0, 4), dtype=np.int32)] * 12
    assert np.array_equal(od_mask_tensor(torch.from_numpy(x), nothing).numpy(), od_mask(x, nothing))


def test_the_grey_is_the_hosts_for_every_colour_of_a_channel_pair() -> None:
    """The rounding to the nearest grey level is where an order of operations would show."""
    g, b = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    for r in (0, 77, 128, 255):
        x = np.stack([np.full_like(g, r), g, b]).astype(np.uint8)[None]
        none = [np.zeros((0, 4), dtype=np.int32)]
        assert np.array_equal(od_mask_tensor(torch.from_numpy(x), none).numpy(), od_mask(x, none))


@pytest.mark.parametrize("shape", [(4, 120, 160), (3, 77, 101), (2, 64, 200), (2, 200, 64), (2, 32, 48),
                                   (1, 64, 64), (1, 480, 640)])
def test_the_downscale_on_tensors_is_torchs_cpu_resize_byte_for_byte(shape: tuple[int, int, int]) -> None:
    n, h, w = shape
    x = frames(n, h, w, seed=h * w)
    assert np.array_equal(downscale_tensor(torch.from_numpy(x)).numpy(), downscale(x))


def test_tensor_forms_refuse_what_is_not_uint8_frames() -> None:
    with pytest.raises(ValueError, match="uint8 RGB frames"):
        downscale_tensor(torch.zeros((2, 3, 8, 8)))
    with pytest.raises(ValueError, match="uint8 RGB frames"):
        od_mask_tensor(torch.zeros((2, 1, 8, 8), dtype=torch.uint8), [np.zeros((0, 4))] * 2)
    with pytest.raises(ValueError, match="2 box lists for 3 frames"):
        od_mask_tensor(torch.zeros((3, 3, 8, 8), dtype=torch.uint8), [np.zeros((0, 4))] * 2)


def _play(wrappers: list, tensor_path: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list, object]:
    """Observations, detections and 64x64 frames of 6 steps of 4 park copies."""
    pytest.importorskip("vizdoom")
    from games import GameFactory

    monkeypatch.setattr(device_frames, "frames_stay_on", lambda device: tensor_path)
    factory = GameFactory(name="doom_park", kwargs=(("level_seed", 0), ("max_steps", 50), ("preset", "small")),
                          wrappers=tuple((name, tuple(kw.items())) for name, kw in wrappers))
    game = factory.make_vector(4)
    seen = []
    try:
        obs, _ = game.reset([0, 1, 2, 3])
        seen.append(obs)
        rng = np.random.default_rng(0)
        for _ in range(6):
            out = game.step(rng.integers(0, game.game_spec.n_actions, 4))
            seen.append(out.obs)
            seen.append([d.boxes for d in out.info.get("detections", [])])
            seen.append(out.info.get("frame64"))
        return seen, game
    finally:
        game.close()


@pytest.mark.parametrize("wrappers", [
    [("detect", {}), ("encode", {})],
    [("detect", {"every": 2}), ("encode", {})],
    [("detect", {})],
    [("encode", {})],
])
def test_the_wrappers_tensor_path_plays_what_their_host_path_plays(wrappers: list,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    host, _ = _play(wrappers, False, monkeypatch)
    tensors, game = _play(wrappers, True, monkeypatch)
    for a, b in zip(host, tensors):
        if isinstance(a, list) or (isinstance(a, np.ndarray) and a.dtype == object):
            assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))
        elif a is not None:
            assert np.array_equal(a, b)
    names = [w[0] for w in wrappers]
    detect = game.game if names == ["detect", "encode"] else game
    if "detect" in names:  # the tensor path ran: the masked frames are a tensor
        assert isinstance(detect.frames, torch.Tensor) and detect.frames.dtype == torch.uint8
    if names == ["detect", "encode"]:
        assert game.game.hand_over and game._source is game.game  # encode reads detect's frames
