"""PPGTA's OD mask and the encoder's 64x64 downscale on torch tensors, where the frames
already are for the detector: on a GPU, the host no longer touches every pixel twice a step.

Both give, bit for bit, what their numpy forms give on the host (:func:`games.perception.base.od_mask`
and :func:`games.perception.encoder.downscale`), so a run's frames do not depend on where they were
masked and shrunk:

- :func:`od_mask_tensor` computes the grey as the host does, one IEEE float32 multiply and add
  at a time in the same order (no fused multiply-add), then rounds half to even; checked over
  all 16.7M colours against the host's ``einsum``.
- :func:`downscale_tensor` is torch's uint8 antialiased bilinear resize as its CPU kernel
  computes it (Pillow's algorithm): per axis, the triangle filter's weights in float64,
  normalised and rounded to int16 at the precision their largest weight allows; the
  horizontal pass first, rounded and clamped to uint8, then the vertical one. The sums are
  exact in float64 (at most about 2^33), so a float64 matrix product on the GPU computes the
  integers the CPU does.

On the CPU the wrappers keep their numpy forms, so CPU runs are what they were; these run
on a CPU in the tests, which compare them with the numpy forms.
"""

from __future__ import annotations

import functools
from typing import Sequence

import numpy as np
import torch

from games.perception.base import _LUMA

_MAX_PRECISION = 22
"""The most fractional bits torch gives a uint8 resize's int16 weights."""


def od_mask_tensor(frames: torch.Tensor, boxes: Sequence[np.ndarray]) -> torch.Tensor:
    """:func:`games.perception.base.od_mask` of ``[N, 3, H, W]`` uint8 frames on any device: each
    frame grey outside its ``[K, 4]`` ``(x, y, width, height)`` boxes, same device and dtype."""
    if frames.ndim != 4 or frames.shape[1] != 3 or frames.dtype != torch.uint8:
        raise ValueError(f"od_mask_tensor needs uint8 RGB frames [N, 3, H, W], got {frames.dtype} "
                         f"{tuple(frames.shape)}")
    if len(boxes) != frames.shape[0]:
        raise ValueError(f"od_mask_tensor got {len(boxes)} box lists for {frames.shape[0]} frames")
    luma = _luma(frames.device)
    x = frames.float()
    grey = x[:, 0] * luma[0]  # each product and sum rounded on its own, as numpy's einsum does
    grey = grey + x[:, 1] * luma[1]
    grey = grey + x[:, 2] * luma[2]
    grey = torch.round(grey).to(torch.uint8)  # half to even, as np.rint
    inside = _inside(boxes, frames.shape[0], frames.shape[2], frames.shape[3], frames.device)
    if inside is None:
        return grey[:, None].expand_as(frames).contiguous()
    return torch.where(inside[:, None], frames, grey[:, None])


@functools.lru_cache(maxsize=8)
def _luma(device: torch.device) -> torch.Tensor:
    return torch.from_numpy(_LUMA).to(device)


def _inside(boxes: Sequence[np.ndarray], n: int, h: int, w: int, device: torch.device) -> torch.Tensor | None:
    """``[N, H, W]`` bool: the pixels inside any of each frame's boxes (None: no box at all)."""
    counts = [int(np.asarray(b).reshape(-1, 4).shape[0]) for b in boxes]
    most = max(counts, default=0)
    if most == 0:
        return None
    padded = np.zeros((n, most, 4), dtype=np.int64)  # a 0 x 0 box covers no pixel
    for i, (b, k) in enumerate(zip(boxes, counts)):
        padded[i, :k] = np.asarray(b, dtype=np.int64).reshape(-1, 4)
    at = torch.from_numpy(padded).to(device)
    x0, y0 = at[..., 0, None], at[..., 1, None]
    x1, y1 = x0 + at[..., 2, None], y0 + at[..., 3, None]
    xs = torch.arange(w, device=device)
    ys = torch.arange(h, device=device)
    across = (xs >= x0) & (xs < x1)  # [N, K, W]
    down = (ys >= y0) & (ys < y1)  # [N, K, H]
    return torch.einsum("nkh,nkw->nhw", down.float(), across.float()) > 0


@functools.lru_cache(maxsize=16)
def _axis(n_in: int, n_out: int) -> tuple[np.ndarray, int]:
    """The ``[n_out, n_in]`` integer weights of one axis of torch's uint8 antialiased bilinear
    resize, and their precision (fractional bits)."""
    scale = n_in / n_out
    support = scale if scale >= 1.0 else 1.0  # bilinear: the triangle's half-width, widened when shrinking
    inverse = 1.0 / scale if scale >= 1.0 else 1.0
    weights = np.zeros((n_out, n_in), dtype=np.float64)
    for i in range(n_out):
        centre = scale * (i + 0.5)
        lo = max(int(centre - support + 0.5), 0)
        hi = min(int(centre + support + 0.5), n_in)
        taps = np.array([max(0.0, 1.0 - abs((j + lo - centre + 0.5) * inverse)) for j in range(hi - lo)])
        total = taps.sum()
        weights[i, lo:hi] = taps / total if total != 0.0 else taps
    precision = 0
    while precision < _MAX_PRECISION and int(0.5 + weights.max() * (1 << (precision + 1))) < (1 << 15):
        precision += 1
    scaled = weights * (1 << precision)
    return np.trunc(np.where(scaled < 0, scaled - 0.5, scaled + 0.5)), precision


@functools.lru_cache(maxsize=16)
def _weights_on(n_in: int, n_out: int, device: torch.device) -> tuple[torch.Tensor, int]:
    """:func:`_axis` on ``device``, uploaded once."""
    weights, precision = _axis(n_in, n_out)
    return torch.from_numpy(weights).to(device), precision


def _pass(x: torch.Tensor, w: torch.Tensor, precision: int, along_rows: bool) -> torch.Tensor:
    acc = torch.matmul(w, x) if along_rows else torch.matmul(x, w.T)
    return torch.clamp(torch.floor((acc + float(1 << (precision - 1))) * (1.0 / (1 << precision))), 0, 255)


def downscale_tensor(frames: torch.Tensor, size: int = 64) -> torch.Tensor:
    """:func:`games.perception.encoder.downscale` of ``[N, 3, H, W]`` uint8 frames on any device:
    ``[N, 3, size, size]`` uint8, the same bytes as torch's CPU resize gives."""
    if frames.ndim != 4 or frames.shape[1] != 3 or frames.dtype != torch.uint8:
        raise ValueError(f"downscale_tensor needs uint8 RGB frames [N, 3, H, W], got {frames.dtype} "
                         f"{tuple(frames.shape)}")
    h, w = int(frames.shape[2]), int(frames.shape[3])
    x = frames.double()
    if w != size:
        x = _pass(x, *_weights_on(w, size, frames.device), along_rows=False)
    if h != size:
        x = _pass(x, *_weights_on(h, size, frames.device), along_rows=True)
    return x.to(torch.uint8)


def frames_stay_on(device: torch.device) -> bool:
    """Whether the wrappers on ``device`` keep a step's frames there as tensors (a GPU) rather
    than masking and shrinking them in numpy on the host (the CPU: what runs have always done,
    bit for bit). The tests make it true on the CPU to run the tensor path there."""
    return device.type != "cpu"


class FramesStream:
    """Where one game's frames are worked on: its own CUDA stream on a GPU, so that two lanes
    (:mod:`evo.run.parallel`) of one process wait each for its own work only; nothing on a CPU.

    Also the host copy of a step's masked frames: :meth:`to_host` copies them into pinned
    memory without waiting when a consumer on the same device reads the tensor itself (the
    ``encode`` wrapper over ``detect``), which then calls :meth:`wait` before its step
    returns, so the copy is complete before anything else can read it."""

    def __init__(self, device: torch.device) -> None:
        self.device = device
        self.stream = torch.cuda.Stream(device) if device.type == "cuda" else None
        self._copied: torch.cuda.Event | None = None

    def __enter__(self) -> "FramesStream":
        self._context = torch.cuda.stream(self.stream) if self.stream is not None else None
        if self._context is not None:
            self._context.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._context is not None:
            self._context.__exit__(*exc)

    def upload(self, frames: np.ndarray) -> torch.Tensor:
        """Host uint8 frames on the device (uint8 crosses the bus: a quarter of float's bytes)."""
        return torch.from_numpy(np.ascontiguousarray(frames)).to(self.device)

    def to_host(self, frames: torch.Tensor, wait: bool) -> np.ndarray:
        """``frames`` as a host array: at once (``wait``), or copied while the device goes on,
        complete after :meth:`wait`."""
        if wait or self.stream is None:
            return frames.cpu().numpy()
        host = torch.empty(frames.shape, dtype=frames.dtype, pin_memory=True)
        host.copy_(frames, non_blocking=True)
        self._copied = torch.cuda.Event()
        self._copied.record(self.stream)
        return host.numpy()

    def wait(self) -> None:
        """Until the last :meth:`to_host` copy is complete."""
        if self._copied is not None:
            self._copied.synchronize()
            self._copied = None
