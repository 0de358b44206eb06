"""A small CNN that finds the park's objects of interest in frames: PPGTA's object detector.

The network is CenterNet-shaped (Zhou et al. 2019, "Objects as Points"): a few strided
convolutions down to 1/16 of the frame, a light feature pyramid back up to 1/4, and one
output map at stride 4 with, per cell, a heatmap logit per type (is an object's centre here?),
the centre's sub-cell offset and the log of the box's size in cells. Decoding keeps the cells
that are the maximum of their 3 x 3 neighbourhood and score over the threshold. No anchors
and no non-maximum suppression on boxes, so one forward and a max-pool serve a whole batch.

It is trained here, on CPU, on frames of parks generated with other seeds than the one it is
scored on (:mod:`games.vision.detector_train`); ``weights/detector.pt`` is the shipped model.
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.fusion import fuse_conv_bn_eval

from games.vision.base import Detections, no_detections

STRIDE = 4
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
    """Frames ``[N, 3, H, W]`` float in [0, 1] -> ``[N, T + 4, H/4, W/4]``: T heatmap logits,
    then offset x, offset y (cells), log width, log height (in cells).

    Args:
        n_types: Object types (heatmap channels).
        width: Channels at stride 4; the deeper stages have 2x and about 2.7x as many.
    """

    def __init__(self, n_types: int, width: int = 20) -> None:
        super().__init__()
        w1, w2, w3 = width, 2 * width, 8 * width // 3
        self.n_types = n_types
        self.stem = nn.Sequential(_conv(3, width // 2, 2), _conv(width // 2, w1, 2), _conv(w1, w1))
        self.down8 = nn.Sequential(_conv(w1, w2, 2), _conv(w2, w2))
        # A dilated last layer: a close pillar fills the frame's height (120 px), so the
        # centre cell must see about that far to size its box.
        self.down16 = nn.Sequential(_conv(w2, w3, 2), _conv(w3, w3), _conv(w3, w3, dilation=2))
        self.lateral8 = nn.Conv2d(w2, w3, 1)
        self.up8 = _conv(w3, w2)
        self.lateral4 = nn.Conv2d(w1, w2, 1)
        self.up4 = _conv(w2, w1)
        self.head = nn.Conv2d(w1, n_types + 4, 1)
        with torch.no_grad():  # CenterNet: heatmaps start near 0.1 so focal loss is stable
            self.head.bias[:n_types].fill_(-2.19)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f4 = self.stem(x)
        f8 = self.down8(f4)
        f16 = self.down16(f8)
        p8 = self.up8(self.lateral8(f8) + F.interpolate(f16, size=f8.shape[-2:], mode="nearest"))
        p4 = self.up4(self.lateral4(f4) + F.interpolate(p8, size=f4.shape[-2:], mode="nearest"))
        return self.head(p4)


def frames_tensor(frames: np.ndarray) -> torch.Tensor:
    """``[N, 3, H, W]`` uint8 -> float32 in [0, 1] (the network's input)."""
    return torch.from_numpy(np.ascontiguousarray(frames)).float().div_(255.0)


def decode(out: torch.Tensor, n_types: int, threshold: float, size: tuple[int, int]
           ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The network's output -> per frame ``(boxes [K, 4] int32, types [K], scores [K])``,
    boxes clipped to the ``(height, width)`` frame."""
    # One object per peak whatever its type: the best type's score at each cell, peaks of
    # that map (a 3 x 3 max-pool), so two types never box the same object twice.
    heat, kinds = torch.sigmoid(out[:, :n_types]).max(dim=1)
    peaks = heat * (F.max_pool2d(heat[:, None], 3, 1, 1)[:, 0] == heat)
    n, gh, gw = heat.shape
    scores, cell = peaks.reshape(n, -1).topk(min(MAX_OBJECTS, gh * gw), dim=1)
    kinds = kinds.reshape(n, -1).gather(1, cell)
    gy, gx = cell // gw, cell % gw
    reg = out[:, n_types:].reshape(n, 4, -1)
    take = cell[:, None].expand(n, 4, cell.shape[1])
    ox, oy, lw, lh = reg.gather(2, take).unbind(1)
    cx, cy = (gx + ox) * STRIDE, (gy + oy) * STRIDE
    bw, bh = lw.clamp(-4, 6).exp() * STRIDE, lh.clamp(-4, 6).exp() * STRIDE
    height, width = size
    x0, y0 = (cx - bw / 2).round().clamp(0, width - 1), (cy - bh / 2).round().clamp(0, height - 1)
    x1 = (cx + bw / 2).round().clamp(max=width).maximum(x0 + 1)
    y1 = (cy + bh / 2).round().clamp(max=height).maximum(y0 + 1)
    boxes = torch.stack([x0, y0, x1 - x0, y1 - y0], dim=2).to(torch.int32).numpy()
    kinds, scores = kinds.numpy().astype(np.int64), scores.numpy().astype(np.float32)
    keep = scores >= threshold
    return [(boxes[i][keep[i]], kinds[i][keep[i]], scores[i][keep[i]]) for i in range(n)]


def inference_net(model: CenterNet) -> nn.Module:
    """A frozen copy of ``model`` that computes the same map faster on CPU: each batch norm
    folded into the convolution before it (eval statistics), and the weights in channels-last
    layout, which oneDNN's convolutions run about a quarter faster on these narrow layers
    (``benchmarks/detector_speed.py``). Outputs match the model's to about 1e-5 (rounding in
    another order), so a box can differ only where a score ties the threshold or a neighbour,
    or an edge sits on a half pixel: with the shipped weights, the same boxes on 256 frames of
    the evaluation park, and the README's precision/recall table on 960 more unchanged."""
    net = copy.deepcopy(model).eval()
    for block in net.modules():
        if isinstance(block, nn.Sequential):
            for i in range(len(block) - 1):
                if isinstance(block[i], nn.Conv2d) and isinstance(block[i + 1], nn.BatchNorm2d):
                    block[i] = fuse_conv_bn_eval(block[i], block[i + 1])
                    block[i + 1] = nn.Identity()
    return net.to(memory_format=torch.channels_last)


class CNNDetector:
    """A trained :class:`CenterNet` as a :class:`games.vision.base.Detector`.

    Args:
        model: The network (put in eval mode here). Detection runs :func:`inference_net` of
            it as it is now: training it further does not change this detector.
        types: Its types' names, in heatmap order.
        threshold: Score from which a peak is reported.
    """

    def __init__(self, model: CenterNet, types: tuple[str, ...],
                 threshold: float = DEFAULT_THRESHOLD) -> None:
        if len(types) != model.n_types:
            raise ValueError(f"a detector of {model.n_types} types got {len(types)} type names")
        if not 0.0 < float(threshold) < 1.0:
            raise ValueError(f"threshold must be in (0, 1), got {threshold!r}")
        self.model = model.eval()
        self.net = inference_net(model)
        self.types = tuple(types)
        self.threshold = float(threshold)

    def detect(self, frames: np.ndarray) -> list[Detections]:
        """``[N, 3, H, W]`` uint8 RGB -> one :class:`Detections` per frame, crops included
        (cut from the frames as given, before any mask), from one forward pass."""
        if frames.ndim != 4 or frames.shape[1] != 3 or frames.dtype != np.uint8:
            raise ValueError(f"detect needs uint8 RGB frames [N, 3, H, W], got {frames.dtype} "
                             f"{frames.shape}")
        if frames.shape[0] == 0:
            return []
        with torch.inference_mode():
            x = frames_tensor(frames).contiguous(memory_format=torch.channels_last)
            out = self.net(x).contiguous()  # decoding reads channel planes
        found = []
        for frame, (boxes, kinds, scores) in zip(frames, decode(out, len(self.types), self.threshold,
                                                                frames.shape[2:])):
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


def load_detector(path: str | Path | None = None, threshold: float | None = None) -> CNNDetector:
    """The detector saved at ``path`` (the shipped ``weights/detector.pt`` by default).

    Args:
        path: A file written by :func:`save_detector`.
        threshold: Overrides the saved score threshold.

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
    return CNNDetector(model, types, saved_threshold if threshold is None else threshold)
