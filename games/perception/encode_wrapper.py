"""The ``encode`` observation wrapper: frames in, the frozen encoder's features out.

PPGTA's policies read what its visual feature extractor makes of the (masked) frames, not
the pixels. This wrapper is that step for any game with RGB frames: each step, every copy's
frame is shrunk to 64x64 and all of them go through the frozen encoder
(:mod:`games.perception.encoder`) in one batched forward, so a population of policies reads
``[D]`` float32 features and still plays with one forward of its own per step. Put it after
``detect`` to encode the OD-masked frames, as PPGTA does::

    game: {name: doom_park, wrappers: [{name: detect}, {name: encode}]}

It also publishes the 64x64 frame it encoded as the info value ``frame64`` (record column
``info.frame64``: one ``[3, 64, 64]`` uint8 array per copy), so that a novelty model can read
the frames a feature-observing policy saw, and sets ``game_spec.obs_encoder`` to the
encoder's fingerprint, so a novelty model on the same encoder reads the features in the
record's observations instead of encoding those frames again (:mod:`objectives.rnd_novelty`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from games.core.base import VecStep, VectorGame
from games.common.device import torch_device
from games.perception import device_frames
from games.perception.detect_wrapper import Detect
from games.perception.encoder import downscale, encode, encode_tensor, fingerprint, load_encoder
from games.core.wrappers import ObservationWrapper

FRAME64_KEY = "frame64"
"""The info key (column ``info.frame64``) of the 64x64 uint8 frames the wrapper encoded."""


def frames_column(frames64: np.ndarray) -> np.ndarray:
    """``[N, 3, 64, 64]`` -> an ``[N]`` object array of ``[3, 64, 64]`` arrays: the shape of an
    info value (one entry per copy), which the record keeps per step."""
    column = np.empty(frames64.shape[0], dtype=object)
    for i in range(frames64.shape[0]):
        column[i] = frames64[i]
    return column


class Encode(ObservationWrapper):
    """``[N, 3, H, W]`` uint8 frames (raw, or masked by ``detect``) -> ``[N, D]`` float32
    features of the frozen encoder; ``info["frame64"]`` holds the frames it encoded.

    Args:
        game: The vector game (or wrapper) with uint8 RGB frames.
        weights: The encoder's weights file; the shipped ``games/perception/weights/encoder.pt``
            when omitted.
        device: Where the encoder runs: ``cpu``, ``cuda`` or ``cuda:N`` (an experiment's
            ``device`` fills it in); features come back to the host.

    Raises:
        ValueError: observations that are not uint8 RGB frames, or weights that cannot be read.
    """

    runs_networks = True
    publishes = frozenset({FRAME64_KEY})

    def __init__(self, game: VectorGame, weights: str | None = None, device: str = "cpu") -> None:
        self.device = str(torch_device(device))
        self.encoder = load_encoder(None if weights is None else Path(weights))
        super().__init__(game)
        self.game_spec = dataclasses.replace(self.game_spec, obs_encoder=fingerprint(self.encoder))
        self.frames64 = np.zeros((self.num_envs, 3, 64, 64), dtype=np.uint8)
        """The 64x64 frames of the last observation."""
        # On a GPU the frames are shrunk and encoded there; right above a `detect` on the same
        # device, from the masked frames it left there, in its stream (no second upload).
        where = torch_device(self.device)
        self._source: Detect | None = None
        self._stream: device_frames.FramesStream | None = None
        if device_frames.frames_stay_on(where):
            if isinstance(game, Detect) and game.stream is not None and game.device == where:
                self._source, self._stream = game, game.stream
                game.hand_over = True
            else:
                self._stream = device_frames.FramesStream(where)

    def obs_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        if len(shape) != 3 or shape[0] != 3:
            raise ValueError(f"encode needs RGB frame observations (3, H, W), got shape {shape}")
        return (self.encoder.features,)

    def obs_dtype(self, dtype: str) -> str:
        if dtype != "uint8":
            raise ValueError(f"encode needs uint8 frames (a game's own, or detect's), got {dtype}")
        return "float32"

    def observation(self, obs: np.ndarray) -> np.ndarray:
        if self._stream is None:
            self.frames64 = downscale(obs)
            return encode(self.encoder, self.frames64, device=self.device)
        source = self._source
        with self._stream:
            if source is not None and source.frames is not None and obs is source.host_frames:
                frames = source.frames
            else:
                if source is not None:
                    source.wait_host()  # obs may be its host copy, still being written
                frames = self._stream.upload(obs)
            frames64 = device_frames.downscale_tensor(frames)
            features = encode_tensor(self.encoder, frames64, self.device)
            self.frames64 = frames64.cpu().numpy()
            out = features.cpu().numpy()
        if source is not None:
            source.wait_host()
        return out

    def step(self, actions: np.ndarray) -> VecStep:
        out = super().step(actions)
        return dataclasses.replace(out, info={**out.info, FRAME64_KEY: frames_column(self.frames64)})
