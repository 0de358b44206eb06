"""The imitation policy: PPGTA's recurrent student that acts as the demonstrations do (Section IV-B).

PPGTA's student has four parts, kept here and sized for a CPU:

- the visual feature extractor (:class:`games.perception.encoder.FrameEncoder`, started from the
  shipped masked-inverse-dynamics encoder and fine-tuned), reading 64x64 frames;
- a local bidirectional GRU over the last :data:`K` frames' features (PPGTA: 256 units; 64
  here), whose two final states make ``h_l``;
- a global GRU over the whole trajectory up to now (PPGTA: 1024 units; 256 here): ``h_g``;
- an MLP head on ``h_c = [h_l, h_g]`` (PPGTA: 512 and 256 units with layer norm and dropout
  0.2; 128 and 64 here) that gives the action's logits.

Both views look only at frames up to the current one (the local window is the last K frames,
bidirectional inside it; the global GRU is causal), so the policy that plays step by step
(:class:`Playing`) gives the same distribution as the one scored on a whole episode
(:func:`trajectory_probs`). At ``t < K - 1`` the window is padded with the first frame.

Training (the student on OD-masked frames, an EMA teacher on full frames, cross-entropy plus
the teacher-student consistency of PPGTA's Eq. 4) is :mod:`games.perception.training.imitation`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from games.perception.encoder import FEATURES, FRAME, FrameEncoder

K = 4
"""Frames the local view reads (PPGTA: a stack of 4 frames)."""
DEFAULT_WEIGHTS = Path(__file__).resolve().parent / "weights" / "imitation.pt"
"""Where ``evo vision train imitation`` writes by default (see docs/guides/preferences.md): the
shipped path-following policy, the style the preference objective rewards."""
OBJECT_TEST_WEIGHTS = DEFAULT_WEIGHTS.with_name("object_test.pt")
"""The shipped object-test policy (``--set object``): it executes a tester's object tests
(:mod:`evo.search.agents.tester`) and its meta sets PPGTA's test success threshold."""


class ImitationPolicy(nn.Module):
    """Frames of a trajectory -> the demonstrator's action distribution at every step.

    Args:
        n_actions: Actions (the park's 9).
        features: Size of a frame's features.
        local: Units of each direction of the local bidirectional GRU.
        global_: Units of the global GRU.
        mlp: Widths of the head's two hidden layers.
        k: Frames of the local view.
        dropout: Dropout after each hidden layer of the head (PPGTA: 0.2).
    """

    def __init__(self, n_actions: int, features: int = FEATURES, local: int = 64, global_: int = 256,
                 mlp: tuple[int, int] = (128, 64), k: int = K, dropout: float = 0.2) -> None:
        super().__init__()
        self.config = {"n_actions": int(n_actions), "features": int(features), "local": int(local),
                       "global_": int(global_), "mlp": [int(m) for m in mlp], "k": int(k), "dropout": float(dropout)}
        self.n_actions, self.k = int(n_actions), int(k)
        self.encoder = FrameEncoder(features)
        self.local = nn.GRU(features, local, batch_first=True, bidirectional=True)
        self.global_ = nn.GRU(features, global_, batch_first=True)
        self.head = nn.Sequential(
            nn.Linear(2 * local + global_, mlp[0]), nn.LayerNorm(mlp[0]), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(mlp[0], mlp[1]), nn.LayerNorm(mlp[1]), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(mlp[1], n_actions),
        )

    def _local(self, windows: torch.Tensor) -> torch.Tensor:
        """``[M, K, D]`` windows of features -> ``[M, 2 * local]`` (both directions' last states)."""
        _, h = self.local(windows)
        return torch.cat([h[0], h[1]], dim=1)

    def states(self, frames: torch.Tensor) -> torch.Tensor:
        """``[B, T, 3, 64, 64]`` frames -> ``[B, T, 2 * local + global]`` the concatenated
        state ``h_c`` at every step (what the teacher-student consistency compares)."""
        b, t = frames.shape[:2]
        f = self.encoder(frames.reshape(b * t, 3, FRAME, FRAME)).view(b, t, -1)
        padded = torch.cat([f[:, :1].expand(b, self.k - 1, f.shape[2]), f], dim=1)
        windows = padded.unfold(1, self.k, 1).permute(0, 1, 3, 2)  # [B, T, K, D]
        h_l = self._local(windows.reshape(b * t, self.k, -1)).view(b, t, -1)
        h_g, _ = self.global_(f)
        return torch.cat([h_l, h_g], dim=2)

    def forward(self, frames: torch.Tensor) -> torch.Tensor:
        """``[B, T, 3, 64, 64]`` frames -> ``[B, T, n_actions]`` logits."""
        return self.head(self.states(frames))


def trajectory_probs(model: ImitationPolicy, frames64: np.ndarray) -> np.ndarray:
    """``[T, 3, 64, 64]`` uint8 frames of one episode -> ``[T, n_actions]`` float64 the
    policy's action distribution at every step (eval mode, no gradients)."""
    model.eval()
    with torch.inference_mode():
        logits = model(torch.from_numpy(np.ascontiguousarray(frames64))[None])[0]
        return torch.softmax(logits.double(), dim=1).numpy()


class Playing:
    """The policy stepped one frame at a time for N copies: the last K frames' features and
    the global GRU's state per copy, kept between calls.

    Args:
        model: The policy (put in eval mode).
        copies: Episodes played at once.
    """

    def __init__(self, model: ImitationPolicy, copies: int) -> None:
        self.model = model.eval()
        self.copies = int(copies)
        self.window: torch.Tensor | None = None
        self.hidden: torch.Tensor | None = None
        self.begun: np.ndarray | None = None
        self.states: torch.Tensor | None = None
        """``[M, D]`` the state ``h_c`` of the copies the last :meth:`step_some` stepped."""

    def reset(self) -> None:
        """Every copy starts a new episode."""
        self.window = self.hidden = self.begun = None

    def step(self, frames64: np.ndarray) -> np.ndarray:
        """``[N, 3, 64, 64]`` uint8 frames of step ``t`` -> ``[N, n_actions]`` float64 probabilities."""
        with torch.inference_mode():
            f = self.model.encoder(torch.from_numpy(np.ascontiguousarray(frames64)))
            if self.window is None:
                self.window = f[:, None].expand(f.shape[0], self.model.k, f.shape[1]).clone()
            else:
                self.window = torch.cat([self.window[:, 1:], f[:, None]], dim=1)
            h_l = self.model._local(self.window)
            out, self.hidden = self.model.global_(f[:, None], self.hidden)
            logits = self.model.head(torch.cat([h_l, out[:, 0]], dim=1))
            return torch.softmax(logits.double(), dim=1).numpy()

    def step_some(self, frames64: np.ndarray, copies: np.ndarray, fresh: np.ndarray) -> np.ndarray:
        """Step only some copies: ``[M, 3, 64, 64]`` frames of copies ``copies [M]`` ->
        ``[M, n_actions]``. A copy with ``fresh`` set (or never stepped) starts its memory at
        this frame, as at an episode's start: how an agent runs the policy for a stretch of an
        episode (an object test) and not from its first step. Use either this or
        :meth:`step` between two resets, not both."""
        copies, fresh = np.asarray(copies, dtype=np.int64), np.asarray(fresh, dtype=bool)
        with torch.inference_mode():
            f = self.model.encoder(torch.from_numpy(np.ascontiguousarray(frames64)))
            k, d = self.model.k, f.shape[1]
            if self.begun is None:
                self.window = f.new_zeros(self.copies, k, d)
                self.hidden = f.new_zeros(1, self.copies, self.model.global_.hidden_size)
                self.begun = np.zeros(self.copies, dtype=bool)
            assert self.window is not None and self.hidden is not None
            idx = torch.from_numpy(copies)
            window = torch.cat([self.window[idx, 1:], f[:, None]], dim=1)
            hidden = self.hidden[:, idx]
            new = torch.from_numpy(fresh | ~self.begun[copies])
            window[new] = f[new, None].expand(-1, k, d)
            hidden[:, new] = 0.0
            out, hidden = self.model.global_(f[:, None], hidden)
            self.window[idx], self.hidden[:, idx] = window, hidden
            self.begun[copies] = True
            self.states = torch.cat([self.model._local(window), out[:, 0]], dim=1)
            logits = self.model.head(self.states)
            return torch.softmax(logits.double(), dim=1).numpy()


def save_policy(model: ImitationPolicy, path: Path, meta: dict[str, Any],
                end: dict[str, torch.Tensor] | None = None) -> None:
    """Write ``model`` as tensors and JSON types only (``torch.load(weights_only=True)``
    reads it), with ``meta`` (what it learned from, what it scored, the JS threshold) and, for
    an object-test policy, the head that ends its tests (:mod:`games.perception.object_test_end`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    saved: dict[str, Any] = {"kind": "imitation", "config": dict(model.config), "state": state, "meta": meta}
    if end is not None:
        saved["end"] = end
    torch.save(saved, path)


def load_policy(path: Path | str | None = None) -> tuple[ImitationPolicy, dict[str, Any]]:
    """The imitation policy at ``path`` (:data:`DEFAULT_WEIGHTS` by default), in eval mode, and its meta.

    Raises:
        ValueError: no file there, or not one :func:`save_policy` wrote.
    """
    path = Path(DEFAULT_WEIGHTS if path is None else path)
    if not path.is_file():
        raise ValueError(f"imitation weights {path} not found (train them: evo vision train imitation "
                         f"--demos DIR --out {path})")
    try:
        saved = torch.load(path, map_location="cpu", weights_only=True)
        if saved.get("kind") != "imitation":
            raise ValueError("no imitation policy in it")
        config = dict(saved["config"])
        config["mlp"] = tuple(config["mlp"])
        model = ImitationPolicy(**config)
        model.load_state_dict(saved["state"])
    except Exception as exc:  # noqa: BLE001 - any unreadable file is the same bad input
        raise ValueError(f"imitation weights {path} are not an imitation policy's: {exc}") from None
    return model.eval(), dict(saved.get("meta", {}))
