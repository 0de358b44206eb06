"""A small CNN that finds the park's objects of interest in frames: PPGTA's object detector.

The network is CenterNet-shaped (Zhou et al. 2019, "Objects as Points"): a 4 x 4 patch stem
and strided convolutions down to 1/16 of the frame, a light feature pyramid back up to 1/8,
and one output map at stride 8 with, per cell, a heatmap logit per type (is an object's
centre here?), the centre's sub-cell offset and the log of the box's size in cells. Decoding
keeps the cells that are the maximum of their 3 x 3 neighbourhood and score over the
threshold. No anchors and no non-maximum suppression on boxes, so one forward serves a batch.

It is sized for the engine's budget: the detector runs on every frame every agent sees, on
the same CPU that renders them, so it costs about 5M multiply-adds a 160 x 120 frame (the
first design, stride 4 and 36M, took twice ViZDoom's time per step; see the README's
"Measured").

It is trained here, on CPU, on frames of parks generated with other seeds than the one it is
scored on (:mod:`games.perception.training.detector`); ``weights/detector.pt`` is the shipped model.
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.fusion import fuse_conv_bn_eval

from games.common.device import torch_device
from games.perception.base import Detections, no_detections

STRIDE = 8
"""Pixels of the frame per cell of the output map."""
MAX_OBJECTS = 24
"""Most objects reported in one frame (a park frame shows at most about a dozen OOIs)."""
DEFAULT_THRESHOLD = 0.4
"""Heatmap score from which a peak is an object, when none was saved with the weights
(training saves the one with the best F1 on a held-out park, never level 0)."""
WEIGHTS = Path(__file__).with_name("weights") / "detector.pt"
"""The shipped model, trained by the command in the README's park section."""


def _conv(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, dilation, dilation, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class CenterNet(nn.Module):
    """Frames ``[N, 3, H, W]`` float in [0, 1] -> ``[N, T + 4, H/8, W/8]``: T heatmap logits,
    then offset x, offset y (cells), log width, log height (in cells).

    Args:
        n_types: Object types (heatmap channels).
        width: Channels at stride 4; stride 8 has 1.5x as many, stride 16 2x.
    """

    def __init__(self, n_types: int, width: int = 16) -> None:
        super().__init__()
        w1, w2, w3 = width, 3 * width // 2, 2 * width
        self.n_types = n_types
        # A 4 x 4 patch to stride 4 at once: the frame's full resolution is read by one
        # layer of 3 channels in, and nothing runs on the 80 x 60 grid.
        self.stem = nn.Sequential(nn.Conv2d(3, w1, 4, 4, bias=False), nn.BatchNorm2d(w1), nn.ReLU(inplace=True))
        self.down8 = nn.Sequential(_conv(w1, w2, 2), _conv(w2, w2))
        # A dilated last layer: a close pillar fills the frame's height (120 px), so the
        # centre cell must see about that far to size its box.
        self.down16 = nn.Sequential(_conv(w2, w3, 2), _conv(w3, w3), _conv(w3, w3, dilation=2))
        self.lateral8 = nn.Conv2d(w2, w3, 1)
        self.up8 = _conv(w3, w2)
        self.head = nn.Conv2d(w2, n_types + 4, 1)
        with torch.no_grad():  # CenterNet: heatmaps start near 0.1 so focal loss is stable
            self.head.bias[:n_types].fill_(-2.19)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f8 = self.down8(self.stem(x))
        f16 = self.down16(f8)
        p8 = self.up8(self.lateral8(f8) + F.interpolate(f16, size=f8.shape[-2:], mode="nearest"))
        return self.head(p8)


def frames_tensor(frames: np.ndarray) -> torch.Tensor:
    """``[N, 3, H, W]`` uint8 -> float32 in [0, 1] (the network's input)."""
    return torch.from_numpy(np.ascontiguousarray(frames)).float().div_(255.0)


def decode(out: torch.Tensor | np.ndarray, n_types: int, threshold: float, size: tuple[int, int],
           channels_last: bool = False) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The network's output ``[N, T + 4, gh, gw]`` (``[N, gh, gw, T + 4]`` with
    ``channels_last``) -> per frame ``(boxes [K, 4] int32, types [K], scores [K])``, boxes
    clipped to the ``(height, width)`` frame, best score first.

    One object per peak whatever its type: the cells whose best type's logit is the maximum
    of their 3 x 3 neighbourhood and whose score (its sigmoid) is at least ``threshold``, at
    most :data:`MAX_OBJECTS` a frame, so two types never box the same object twice. In numpy
    on the logits (the sigmoid only for the peaks): the maps are small (a few thousand cells
    a batch), and torch's cost per call was most of the decoding's time."""
    out = np.asarray(out.detach().numpy() if isinstance(out, torch.Tensor) else out, dtype=np.float32)
    if not channels_last:
        out = out.transpose(0, 2, 3, 1)
    n, gh, gw, _ = out.shape
    best = out[..., 0].copy()
    for t in range(1, n_types):  # numpy reduces a short strided axis ~6x slower than this
        np.maximum(best, out[..., t], out=best)
    padded = np.full((n, gh + 2, gw + 2), -np.inf, dtype=np.float32)
    padded[:, 1:-1, 1:-1] = best
    across = np.maximum(np.maximum(padded[:, :, :-2], padded[:, :, 1:-1]), padded[:, :, 2:])
    pooled = np.maximum(np.maximum(across[:, :-2], across[:, 1:-1]), across[:, 2:])
    floor = np.float32(np.log(threshold / (1.0 - threshold)) - 1e-3)  # under the threshold's logit
    frame, gy, gx = np.nonzero((best == pooled) & (best >= floor))
    scores = np.float32(1.0) / (np.float32(1.0) + np.exp(-best[frame, gy, gx]))
    high = scores >= threshold
    frame, gy, gx, scores = frame[high], gy[high], gx[high], scores[high]
    order = np.lexsort((-scores, frame))  # by frame, best first within it
    frame, gy, gx, scores = frame[order], gy[order], gx[order], scores[order]
    rank = np.arange(frame.size) - np.searchsorted(frame, frame)
    keep = rank < MAX_OBJECTS
    frame, gy, gx, scores = frame[keep], gy[keep], gx[keep], scores[keep]
    ox, oy, lw, lh = out[frame, gy, gx, n_types:n_types + 4].T
    stride = np.float32(STRIDE)
    cx, cy = (gx + ox) * stride, (gy + oy) * stride
    bw, bh = np.exp(np.clip(lw, -4, 6)) * stride, np.exp(np.clip(lh, -4, 6)) * stride
    height, width = size
    x0 = np.clip(np.rint(cx - bw / 2), 0, width - 1)
    y0 = np.clip(np.rint(cy - bh / 2), 0, height - 1)
    x1 = np.maximum(np.minimum(np.rint(cx + bw / 2), width), x0 + 1)
    y1 = np.maximum(np.minimum(np.rint(cy + bh / 2), height), y0 + 1)
    boxes = np.stack([x0, y0, x1 - x0, y1 - y0], axis=1).astype(np.int32)
    types = out[frame, gy, gx, :n_types].argmax(axis=1).astype(np.int64)
    bounds = np.searchsorted(frame, np.arange(n + 1))
    return [(boxes[a:b], types[a:b], scores[a:b].astype(np.float32)) for a, b in zip(bounds[:-1], bounds[1:])]


class InferenceNet(nn.Module):
    """A frozen copy of a :class:`CenterNet` that computes the same map faster on CPU, from
    uint8 frames ``[N, 3, H, W]`` to ``[N, H/8, W/8, T + 4]`` (channels last).

    What makes it faster (``benchmarks/detector_speed.py``):
    - each batch norm folded into the convolution before it (eval statistics), and the
      stem's weights divided by 255, so the frames are only cast to float, into a buffer
      kept from call to call (a fresh 1.8 MB tensor per batch of 8 cost page faults that took
      longer than the cast);
    - the stem reads the frames as they come (channels first: making them channels-last
      took longer than the convolution); its output and every layer after it are
      channels-last, which oneDNN's convolutions run faster on these narrow layers;
    - the 1 x 1 convolutions are matrix products over the channels-last pixels (PyTorch
      sends a 1 x 1 convolution on channels-last input to its slow reference kernel).

    Outputs match the model's to about 1e-5 (rounding in another order), so a box can differ
    only where a score ties the threshold or a neighbour, or an edge sits on a half pixel.
    """

    def __init__(self, model: CenterNet, device: str = "cpu") -> None:
        super().__init__()
        self.device = torch_device(device)
        net = copy.deepcopy(model).eval().to(self.device)
        for block in net.modules():
            if isinstance(block, nn.Sequential):
                for i in range(len(block) - 1):
                    if isinstance(block[i], nn.Conv2d) and isinstance(block[i + 1], nn.BatchNorm2d):
                        block[i] = fuse_conv_bn_eval(block[i], block[i + 1])
                        block[i + 1] = nn.Identity()
        with torch.no_grad():
            net.stem[0].weight.mul_(1.0 / 255.0)
        self.stem = net.stem
        self.down8 = net.down8.to(memory_format=torch.channels_last)
        self.down16 = net.down16.to(memory_format=torch.channels_last)
        self.up8 = net.up8.to(memory_format=torch.channels_last)
        self.lateral = (net.lateral8.weight[:, :, 0, 0].detach().clone(), net.lateral8.bias.detach().clone())
        self.head = (net.head.weight[:, :, 0, 0].detach().clone(), net.head.bias.detach().clone())
        self.requires_grad_(False)
        self._buffer = torch.empty(0)

    def forward(self, frames: np.ndarray) -> torch.Tensor:
        """``[N, 3, H, W]`` uint8 -> ``[N, H/8, W/8, T + 4]`` float32, on the net's device."""
        if self.device.type != "cpu":  # uint8 crosses the bus, a quarter of the float bytes
            return self._maps(torch.from_numpy(np.ascontiguousarray(frames)).to(self.device).float())
        if self._buffer.shape[0] < frames.shape[0] or self._buffer.shape[1:] != frames.shape[1:]:
            self._buffer = torch.empty(frames.shape, dtype=torch.float32)
        x = self._buffer[: frames.shape[0]]
        x.copy_(torch.from_numpy(np.ascontiguousarray(frames)))
        return self._maps(x)

    def maps_of(self, frames: torch.Tensor) -> torch.Tensor:
        """:meth:`forward` of ``[N, 3, H, W]`` uint8 frames already on the net's device."""
        return self._maps(frames.float())

    def _maps(self, x: torch.Tensor) -> torch.Tensor:
        f8 = self.down8(self.stem(x).contiguous(memory_format=torch.channels_last))
        f16 = self.down16(f8)
        lateral = F.linear(f8.permute(0, 2, 3, 1), *self.lateral).permute(0, 3, 1, 2)
        p8 = self.up8(lateral + F.interpolate(f16, size=f8.shape[-2:], mode="nearest"))
        return F.linear(p8.permute(0, 2, 3, 1), *self.head)


class CNNDetector:
    """A trained :class:`CenterNet` as a :class:`games.perception.base.Detector`.

    Args:
        model: The network (put in eval mode here). Detection runs an :class:`InferenceNet`
            of it as it is now: training it further does not change this detector.
        types: Its types' names, in heatmap order.
        threshold: Score from which a peak is reported.
        device: Where the network runs (``cpu``, ``cuda``, ``cuda:N``); frames come from and
            detections go back to the host either way.
    """

    def __init__(self, model: CenterNet, types: tuple[str, ...],
                 threshold: float = DEFAULT_THRESHOLD, device: str = "cpu") -> None:
        if len(types) != model.n_types:
            raise ValueError(f"a detector of {model.n_types} types got {len(types)} type names")
        if not 0.0 < float(threshold) < 1.0:
            raise ValueError(f"threshold must be in (0, 1), got {threshold!r}")
        self.model = model.eval()
        self.net = InferenceNet(model, device)
        self.types = tuple(types)
        self.threshold = float(threshold)

    def detect(self, frames: np.ndarray, on_device: torch.Tensor | None = None) -> list[Detections]:
        """``[N, 3, H, W]`` uint8 RGB -> one :class:`Detections` per frame, crops included
        (cut from the frames as given, before any mask), from one forward pass.

        ``on_device``: the same frames as a uint8 tensor already on the detector's device
        (the ``detect`` wrapper uploads a step's frames once, for the net and the mask)."""
        if frames.ndim != 4 or frames.shape[1] != 3 or frames.dtype != np.uint8:
            raise ValueError(f"detect needs uint8 RGB frames [N, 3, H, W], got {frames.dtype} "
                             f"{frames.shape}")
        if frames.shape[0] == 0:
            return []
        with torch.inference_mode():
            out = (self.net(frames) if on_device is None else self.net.maps_of(on_device)).cpu()
        found = []
        for frame, (boxes, kinds, scores) in zip(frames, decode(out, len(self.types), self.threshold,
                                                                frames.shape[2:], channels_last=True)):
            if not len(boxes):
                found.append(no_detections())
                continue
            crops = tuple(frame[:, y:y + h, x:x + w].copy() for x, y, w, h in boxes.tolist())
            found.append(Detections(boxes, kinds, scores, crops))
        return found


def save_detector(path: str | Path, model: CenterNet, types: tuple[str, ...], width: int,
                  threshold: float = DEFAULT_THRESHOLD) -> None:
    """Write the weights with what rebuilds the network (tensors and JSON-able values only)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    torch.save({"state_dict": model.state_dict(), "types": list(types), "width": int(width),
                "threshold": float(threshold)}, Path(path))


def load_detector(path: str | Path | None = None, threshold: float | None = None,
                  device: str = "cpu") -> CNNDetector:
    """The detector saved at ``path`` (the shipped ``weights/detector.pt`` by default).

    Args:
        path: A file written by :func:`save_detector`.
        threshold: Overrides the saved score threshold.
        device: Where it runs (:class:`CNNDetector`).

    Raises:
        ValueError: the file is missing or is not a detector's weights.
    """
    path = Path(WEIGHTS if path is None else path)
    if not path.is_file():
        raise ValueError(f"detector weights {str(path)!r} not found; train them with "
                         f"'evo vision train detector --out {path}'")
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
        types = tuple(str(t) for t in saved["types"])
        model = CenterNet(len(types), int(saved["width"]))
        model.load_state_dict(saved["state_dict"])
        saved_threshold = float(saved["threshold"])
    except Exception as exc:  # noqa: BLE001 - any unreadable file is the same bad input
        raise ValueError(f"detector weights {str(path)!r} are not a detector saved by "
                         f"evo vision train detector ({type(exc).__name__})") from None
    return CNNDetector(model, types, saved_threshold if threshold is None else threshold, device)
