"""A frame encoder learned by masked inverse dynamics (PPGTA, Section IV-A).

PPGTA fine-tunes a visual feature extractor by predicting the action taken between two
adjacent frames, one of them greyed outside the detected objects (the OD mask,
:func:`games.perception.base.od_mask`), so that the features keep what the agent controls and the
objects it tests. Here the extractor is a small CNN trained from scratch on this machine on
frames of generated parks (:mod:`games.perception.training.encoder`); nothing is downloaded.

Frames are first shrunk to 64x64 (:func:`downscale`; PPGTA downsizes the novelty model's input
to 64x64x3, and the encoder shares that input so the two read the same frames). The encoder
maps ``[N, 3, 64, 64]`` uint8 to ``[N, D]`` float32 features, layer-normalised so a policy's
first layer gets inputs of unit scale whatever the frame. :class:`InverseDynamics` is the
encoder plus the head that names the action; only the encoder is used once trained (the
``encode`` wrapper, :mod:`games.perception.encode_wrapper`; the RND novelty's backbone,
:mod:`objectives.rnd_novelty`).
"""

from __future__ import annotations

import copy
import functools
import hashlib
import threading
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from games.common.device import torch_device

FRAME = 64
"""Side of the square frames the encoder reads (PPGTA: novelty inputs downsized to 64x64x3)."""
FEATURES = 128
"""Size of a frame's features by default."""
DEFAULT_WEIGHTS = Path(__file__).resolve().parent / "weights" / "encoder.pt"
"""The shipped encoder, trained by ``evo vision train encoder`` (see the README's park section)."""


def downscale(frames: np.ndarray, size: int = FRAME) -> np.ndarray:
    """``[N, 3, H, W]`` uint8 frames shrunk to ``[N, 3, size, size]`` uint8 by antialiased
    bilinear interpolation (a triangle filter as wide as the shrink factor, close to area
    averaging; torch's uint8 path runs it at about 4x the speed of area pooling on float).
    The aspect ratio is not kept, as PPGTA's 64x64 input does not keep it."""
    frames = np.asarray(frames)
    if frames.ndim != 4 or frames.shape[1] != 3:
        raise ValueError(f"downscale needs RGB frames [N, 3, H, W], got shape {frames.shape}")
    if frames.shape[2:] == (size, size):
        return np.ascontiguousarray(frames, dtype=np.uint8)
    x = torch.from_numpy(np.ascontiguousarray(frames, dtype=np.uint8))
    return F.interpolate(x, (size, size), mode="bilinear", antialias=True).numpy()


class FrameEncoder(nn.Module):
    """``[N, 3, 64, 64]`` uint8 frames -> ``[N, features]`` float32 features.

    Three conv layers in the shape of the Nature DQN's (Mnih et al. 2015: 8x8 stride 4,
    4x4 stride 2, 3x3 stride 1, ReLU), narrower for CPU, then a linear layer and a layer norm
    without learned scale: about 1.4 M multiply-adds a frame.

    Args:
        features: Size of the output.
    """

    def __init__(self, features: int = FEATURES) -> None:
        super().__init__()
        self.features = int(features)
        self.conv = nn.Sequential(
            nn.Conv2d(3, 16, 8, stride=4), nn.ReLU(),   # 64 -> 15
            nn.Conv2d(16, 32, 4, stride=2), nn.ReLU(),  # 15 -> 6
            nn.Conv2d(32, 64, 3, stride=1), nn.ReLU(),  # 6 -> 4
            nn.Flatten(),
        )
        self.project = nn.Linear(64 * 4 * 4, self.features)
        self.norm = nn.LayerNorm(self.features, elementwise_affine=False)

    def forward(self, frames: torch.Tensor) -> torch.Tensor:
        """``frames``: uint8 (or float in [0, 255]) ``[N, 3, 64, 64]``."""
        x = frames.to(torch.float32) * (1.0 / 255.0) - 0.5
        return self.norm(self.project(self.conv(x)))


class InverseDynamics(nn.Module):
    """The encoder and a head that names the action between two frames (PPGTA's Eq. 3).

    The head reads both frames' features and their difference (what changed is what the
    action did).

    Args:
        n_actions: Actions to tell apart (the park's 9).
        features: Size of the encoder's output.
        hidden: Width of the head's hidden layer.
    """

    def __init__(self, n_actions: int, features: int = FEATURES, hidden: int = 256) -> None:
        super().__init__()
        self.n_actions = int(n_actions)
        self.hidden = int(hidden)
        self.encoder = FrameEncoder(features)
        self.head = nn.Sequential(nn.Linear(3 * features, hidden), nn.ReLU(), nn.Linear(hidden, n_actions))

    def forward(self, before: torch.Tensor, after: torch.Tensor) -> torch.Tensor:
        """Action logits ``[N, n_actions]`` for ``[N, 3, 64, 64]`` frames before and after."""
        n = before.shape[0]
        f = self.encoder(torch.cat([before, after]))
        fb, fa = f[:n], f[n:]
        return self.head(torch.cat([fb, fa, fa - fb], dim=1))


def save_model(model: InverseDynamics, path: Path, meta: dict[str, Any]) -> None:
    """Write ``model`` as tensors and JSON types only (``torch.load(weights_only=True)`` reads
    it), with ``meta`` (how it was trained, what it scored)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    config = {"n_actions": model.n_actions, "features": model.encoder.features, "hidden": model.hidden}
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    torch.save({"config": config, "state": state, "meta": meta}, path)


def load_model(path: Path | str | None = None) -> tuple[InverseDynamics, dict[str, Any]]:
    """The inverse-dynamics model at ``path`` (the shipped weights by default) and its meta.

    Raises:
        ValueError: no file there, or not one :func:`save_model` wrote.
    """
    path = Path(DEFAULT_WEIGHTS if path is None else path)
    if not path.is_file():
        raise ValueError(f"encoder weights {path} not found (train them: evo vision train encoder --out {path})")
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
        model = InverseDynamics(**saved["config"])
        model.load_state_dict(saved["state"])
    except Exception as exc:  # noqa: BLE001 - any unreadable file is the same bad input
        raise ValueError(f"encoder weights {path} are not an encoder's: {exc}") from None
    return model.eval(), dict(saved.get("meta", {}))


@functools.lru_cache(maxsize=4)
def _frozen(path: str, mtime_ns: int) -> FrameEncoder:
    encoder = load_model(path)[0].encoder
    encoder.requires_grad_(False)
    return encoder.eval()


def load_encoder(path: Path | str | None = None) -> FrameEncoder:
    """The frozen encoder (no gradients, eval mode) at ``path``, the shipped one by default;
    loaded once per file and shared, since nothing changes it.

    Raises:
        ValueError: as :func:`load_model`.
    """
    resolved = Path(DEFAULT_WEIGHTS if path is None else path).resolve()
    if not resolved.is_file():
        load_model(resolved)  # raises the one-line error
    return _frozen(str(resolved), resolved.stat().st_mtime_ns)


def fingerprint(encoder: nn.Module) -> str:
    """A short digest of ``encoder``'s weights: tells two encoders apart in a checkpoint."""
    digest = hashlib.sha256()
    for name, tensor in sorted(encoder.state_dict().items()):
        digest.update(name.encode())
        digest.update(tensor.detach().contiguous().numpy().tobytes())
    return digest.hexdigest()[:16]


class _Inference(nn.Module):
    """A frozen copy of a :class:`FrameEncoder` for playing: the input's scaling (``x / 255
    - 0.5``) folded into the first convolution, the next ones channels-last, the float input
    in a buffer kept from call to call (one per thread: the serial backend's lanes share this
    copy), ReLUs in place. The same features to about 1e-6."""

    def __init__(self, encoder: FrameEncoder, device: str = "cpu") -> None:
        super().__init__()
        self.device = torch_device(device)
        frozen = copy.deepcopy(encoder).eval().requires_grad_(False).to(self.device)
        first, second, third = (m for m in frozen.conv if isinstance(m, nn.Conv2d))
        with torch.no_grad():
            first.bias.sub_(0.5 * first.weight.sum(dim=(1, 2, 3)))
            first.weight.mul_(1.0 / 255.0)
        self.first = first
        self.rest = nn.Sequential(second, nn.ReLU(inplace=True), third, nn.ReLU(inplace=True)
                                  ).to(memory_format=torch.channels_last)
        self.project, self.norm = frozen.project, frozen.norm
        self._local = threading.local()

    def forward(self, frames64: np.ndarray) -> torch.Tensor:
        if self.device.type != "cpu":  # uint8 crosses the bus, a quarter of the float bytes
            return self._features(torch.from_numpy(np.ascontiguousarray(frames64)).to(self.device).float())
        buffer = getattr(self._local, "buffer", None)
        if buffer is None or buffer.shape[0] < frames64.shape[0]:
            buffer = self._local.buffer = torch.empty((frames64.shape[0], 3, FRAME, FRAME), dtype=torch.float32)
        x = buffer[: frames64.shape[0]]
        x.copy_(torch.from_numpy(np.ascontiguousarray(frames64)))
        return self._features(x)

    def _features(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu_(self.first(x)).contiguous(memory_format=torch.channels_last)
        h = self.rest(h).contiguous()  # the linear layer reads channels-first order
        return self.norm(self.project(h.flatten(1)))


_INFERENCE: "weakref.WeakKeyDictionary[FrameEncoder, dict[str, _Inference]]" = weakref.WeakKeyDictionary()
_INFERENCE_LOCK = threading.Lock()


def _inference(encoder: FrameEncoder, device: str) -> _Inference:
    """The faster frozen copy of ``encoder`` on ``device``, made on first use."""
    with _INFERENCE_LOCK:  # lanes of the serial backend encode at once
        copies = _INFERENCE.setdefault(encoder, {})
        net = copies.get(device)
        if net is None:
            net = copies[device] = _Inference(encoder, device)
    return net


def encode_tensor(encoder: FrameEncoder, frames64: torch.Tensor, device: str) -> torch.Tensor:
    """:func:`encode` of ``[N, 3, 64, 64]`` uint8 frames already on ``device``: the features
    stay there (the ``encode`` wrapper's path where the frames were masked and shrunk)."""
    with torch.inference_mode():
        return _inference(encoder, device)._features(frames64.float())


def encode(encoder: FrameEncoder, frames64: np.ndarray, batch: int = 1024, device: str = "cpu") -> np.ndarray:
    """``[N, 3, 64, 64]`` uint8 frames -> ``[N, D]`` float32 features, in batches of
    ``batch`` frames (one forward each; memory stays bounded on long records).

    For frozen encoders (:func:`load_encoder`'s): the first call makes a faster copy of the
    network (:class:`_Inference`) that later calls reuse, so training the encoder after it
    would not change what this returns. ``device`` is where that copy runs (``cpu``, ``cuda``,
    ``cuda:N``); frames come from and features go back to the host either way."""
    frames64 = np.asarray(frames64)
    if frames64.ndim != 4 or frames64.shape[1:] != (3, FRAME, FRAME):
        raise ValueError(f"encode needs frames [N, 3, {FRAME}, {FRAME}], got shape {frames64.shape}")
    net = _inference(encoder, device)
    out = np.empty((frames64.shape[0], encoder.features), dtype=np.float32)
    with torch.inference_mode():
        for a in range(0, frames64.shape[0], batch):
            out[a:a + batch] = net(frames64[a:a + batch]).cpu().numpy()
    return out
