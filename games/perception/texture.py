"""The texture judge: a small CNN that tells, from a crop of one object, whether its texture is
bugged (in the park: a low-resolution or a stretched copy of the decoration's sprite).

PPGTA only finds objects; judging how they look is this project's visual oracle
(:mod:`oracles.visual`). The judge sees a crop letterboxed into a square (so a stretched
sprite keeps its too-wide shape) and resized to :data:`CROP_SIZE`, with three numbers beside
it: the object's type (as the detector named it), the crop's aspect ratio and its height in
the frame (how much detail a crop can show at all). It answers which class the texture is in:
normal first, then the game's bug kinds (the park's: lowres, stretched); the probability of a
bug is one minus that of normal. The object types and the classes are the game's, saved with
the weights, so the judge imports no game.

Trained here on CPU from park levels other than the one scored (``evo vision train texture``,
:mod:`games.perception.training.texture`); the weights ship in ``weights/texture.pt``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from games.common.device import torch_device

CROP_SIZE = 32
"""Side of the square a crop is resized to."""
MIN_HEIGHT = 8
"""Crops shorter than this (pixels) are not judged: at 160x120 such an object is a few blobs
of colour, too far for any texture to show."""
NORMAL = "normal"
"""The judge's first class: the crop's texture is as it should be (the others are bugs)."""
DEFAULT_WEIGHTS = Path(__file__).parent / "weights" / "texture.pt"


def judgeable(box: Sequence[int], frame_shape: tuple[int, int], min_height: int = MIN_HEIGHT) -> bool:
    """Whether a box is worth judging: tall enough, and whole (not cut by the frame's edge,
    which would hide how wide the object is).

    Args:
        box: ``(x, y, width, height)`` in pixels.
        frame_shape: ``(height, width)`` of the frame.
        min_height: Smallest height judged.
    """
    x, y, w, h = (int(v) for v in box)
    height, width = frame_shape
    return h >= min_height and x > 0 and y > 0 and x + w < width and y + h < height


def crop(frame: np.ndarray, box: Sequence[int]) -> np.ndarray:
    """The ``[3, h, w]`` uint8 part of an RGB frame ``[3, H, W]`` inside ``box``, clipped to
    the frame (as the ``detect`` wrapper's ``Detections.crops``)."""
    x, y, w, h = (int(v) for v in box)
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, frame.shape[2]), min(y + h, frame.shape[1])
    return np.ascontiguousarray(frame[:, y0:max(y1, y0 + 1), x0:max(x1, x0 + 1)])


def prepare(crops: Sequence[np.ndarray], types: Sequence[int], frame_height: int,
            n_types: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The judge's inputs for a batch of crops.

    Args:
        crops: ``[3, h, w]`` uint8 crops.
        types: Index of each crop's type among the judge's ``n_types`` types.
        frame_height: Height of the frames they were cut from (heights are judged relative
            to it).
        n_types: Object types the judge knows.

    Returns:
        ``([N, 3, CROP_SIZE, CROP_SIZE]`` float32 in [0, 1] letterboxed crops,
        ``[N, n_types + 2]`` float32: type one-hot, log aspect ratio, relative height).
    """
    images = torch.zeros((len(crops), 3, CROP_SIZE, CROP_SIZE))
    extra = torch.zeros((len(crops), n_types + 2))
    for i, (c, t) in enumerate(zip(crops, types)):
        h, w = c.shape[1:]
        side = max(h, w)
        square = torch.zeros((3, side, side))
        top, left = (side - h) // 2, (side - w) // 2
        square[:, top:top + h, left:left + w] = torch.from_numpy(np.asarray(c, dtype=np.float32) / 255.0)
        images[i] = F.interpolate(square[None], size=(CROP_SIZE, CROP_SIZE), mode="bilinear",
                                  align_corners=False, antialias=side > CROP_SIZE)[0]
        extra[i, int(t)] = 1.0
        extra[i, n_types] = float(np.log(w / h))
        extra[i, n_types + 1] = h / float(frame_height)
    return images, extra


class TextureNet(nn.Module):
    """Three conv blocks over the crop, its type and shape joined before the last layers.

    Args:
        n_types: Object types (the type one-hot's width).
        n_classes: Texture classes it answers, normal included.
        width: Channels of the first conv layer.
    """

    def __init__(self, n_types: int, n_classes: int, width: int = 16) -> None:
        super().__init__()
        self.width = int(width)
        w = self.width
        self.features = nn.Sequential(
            nn.Conv2d(3, w, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),          # 16x16
            nn.Conv2d(w, 2 * w, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),      # 8x8
            nn.Conv2d(2 * w, 4 * w, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),  # 4x4
            nn.Flatten(),
        )
        self.head = nn.Sequential(
            nn.Linear(4 * w * 16 + n_types + 2, 64), nn.ReLU(), nn.Linear(64, n_classes),
        )

    def forward(self, images: torch.Tensor, extra: torch.Tensor) -> torch.Tensor:
        """Logits ``[N, n_classes]``."""
        return self.head(torch.cat([self.features(images), extra], dim=1))


@dataclass
class TextureJudge:
    """A trained :class:`TextureNet` and what it needs to read crops.

    Attributes:
        net: The network (eval mode).
        types: The type names its one-hot columns stand for (the detector's).
        classes: The classes it answers, :data:`NORMAL` first.
    """

    net: TextureNet
    types: tuple[str, ...]
    classes: tuple[str, ...]

    @torch.no_grad()
    def probabilities(self, crops: Sequence[np.ndarray], types: Sequence[str],
                      frame_height: int) -> np.ndarray:
        """``[N, len(classes)]`` class probabilities of a batch of crops, one forward pass.

        Args:
            crops: ``[3, h, w]`` uint8 crops.
            types: Each crop's type name (one of :attr:`types`).
            frame_height: Height in pixels of the frames they come from.

        Raises:
            ValueError: a type the judge does not know.
        """
        if not len(crops):
            return np.zeros((0, len(self.classes)), dtype=np.float32)
        unknown = sorted(set(types) - set(self.types))
        if unknown:
            raise ValueError(f"the texture judge knows types {', '.join(self.types)}, got {', '.join(unknown)}")
        index = {name: k for k, name in enumerate(self.types)}
        images, extra = prepare(crops, [index[t] for t in types], frame_height, len(self.types))
        device = next(self.net.parameters()).device  # where load_texture_judge put it
        return torch.softmax(self.net(images.to(device), extra.to(device)), dim=1).cpu().numpy()

    def bug_probability(self, crops: Sequence[np.ndarray], types: Sequence[str],
                        frame_height: int) -> np.ndarray:
        """``[N]`` probability that each crop shows a texture bug (one minus normal)."""
        return 1.0 - self.probabilities(crops, types, frame_height)[:, 0]


def save_texture_judge(judge: TextureJudge, path: str | Path) -> None:
    """Write the weights and the few numbers that rebuild the network (tensors and JSON
    types only, so loading them never runs code)."""
    torch.save({"state_dict": judge.net.state_dict(), "width": judge.net.width,
                "types": list(judge.types), "classes": list(judge.classes), "crop_size": CROP_SIZE},
               str(path))


def load_texture_judge(path: str | Path | None = None, device: str = "cpu") -> TextureJudge:
    """The judge saved at ``path`` (default: the shipped ``weights/texture.pt``), its network on
    ``device`` (``cpu``, ``cuda``, ``cuda:N``; crops come from and probabilities go back to the
    host either way).

    Raises:
        ValueError: no such file, or one that is not a texture judge of this version.
    """
    path = Path(path) if path is not None else DEFAULT_WEIGHTS
    if not path.is_file():
        raise ValueError(f"texture judge weights {path} not found (train them: evo vision train texture)")
    try:
        state = torch.load(str(path), map_location="cpu", weights_only=True)
        types, classes = tuple(state["types"]), tuple(state["classes"])
        if classes[:1] != (NORMAL,) or state["crop_size"] != CROP_SIZE:
            raise KeyError("classes")
        net = TextureNet(len(types), len(classes), int(state["width"]))
        net.load_state_dict(state["state_dict"])
    except Exception as exc:  # noqa: BLE001 - any unreadable file is the same bad input
        raise ValueError(f"{path} is not a texture judge's weights ({type(exc).__name__}: {exc})") from None
    net.eval().to(torch_device(device))
    return TextureJudge(net, types, classes)
