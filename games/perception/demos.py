"""Demonstrations: episodes of the style a tester prefers, kept on disk for imitation.

PPGTA (Section IV-B and V; ``../shared/papers/ppgta-preference-conditioned-pixel-agent.txt``)
conditions exploration on a few demonstrations of two kinds: following the pathways of a
region (the preferred exploration style) and testing objects (circling one, the "360-degree"
object test). A demonstration here is one episode: what the player saw, what it pressed, and
where it stood.

The format (one folder, written by :func:`save_demo` and read by :func:`load_demos`):

- ``manifest.json``: ``{"format": 1, "action_names": [...], "frame": 64, "episodes": [...]}``
  with, per episode, ``file`` (its ``.npz``), ``source`` (``plan:path``, ``plan:object``,
  ``agent:<name>``, ``person``), ``set`` (``path`` or ``object``), ``level_seed``,
  ``preset``, ``steps``, and ``target`` (the object an object test circles, else null).
- one ``<name>.npz`` per episode (compressed):

  - ``frames``: ``[T + 1, 3, 64, 64]`` uint8, the frames as the game showed them, shrunk
    to the 64x64 every network of :mod:`games.perception` reads
    (:func:`games.perception.encoder.downscale`);
    ``frames[t]`` is what the player saw before ``actions[t]``.
  - ``masked``: the same frames OD-masked at full resolution before shrinking (grey outside
    the objects of interest; :func:`games.perception.base.od_mask`): what the imitation
    student sees. Boxes come from the labels buffer while demonstrating (ground truth, used only to
    make the training input, as for the encoder's training); from the detector's
    ``info.detections`` for an agent's record.
  - ``actions``: ``[T]`` int64 indices into ``action_names``.
  - ``features``: ``[T + 1, F]`` float64 state features (the park's ``(x, y, angle)``): for
    scoring and maps only, never a policy's input.

Frames are kept at 64x64, not at the game's resolution: an episode of 500 park steps is then
about 6 MB before compression instead of 29 MB, and nothing that reads demonstrations needs more.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from games.perception.base import od_mask
from games.perception.encoder import FRAME, downscale

FORMAT = 1
MANIFEST = "manifest.json"
SETS = ("path", "object")
"""PPGTA's two demonstration sets: path following in a region, and object tests."""


@dataclass(frozen=True, eq=False)
class Demo:
    """One demonstrated episode (see the module for the arrays).

    Attributes:
        frames: ``[T + 1, 3, 64, 64]`` uint8.
        masked: ``[T + 1, 3, 64, 64]`` uint8, OD-masked.
        actions: ``[T]`` int64.
        features: ``[T + 1, F]`` float64.
        meta: The manifest's entry: source, set, level_seed, preset, target.
    """

    frames: np.ndarray
    masked: np.ndarray
    actions: np.ndarray
    features: np.ndarray
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        t = self.actions.shape[0]
        shape = (t + 1, 3, FRAME, FRAME)
        if self.frames.shape != shape or self.masked.shape != shape:
            raise ValueError(f"a demonstration of {t} actions needs frames and masked of shape {shape}, "
                             f"got {self.frames.shape} and {self.masked.shape}")
        if self.features.shape[0] != t + 1:
            raise ValueError(f"a demonstration of {t} actions needs {t + 1} rows of features, got {self.features.shape[0]}")

    @property
    def steps(self) -> int:
        """Actions in the episode."""
        return int(self.actions.shape[0])


def make_demo(frames: np.ndarray, masked: np.ndarray, actions: Sequence[int], features: np.ndarray,
              **meta: Any) -> Demo:
    """A :class:`Demo` from frames at any resolution (``[T + 1, 3, H, W]`` uint8; shrunk here)."""
    return Demo(downscale(np.asarray(frames, dtype=np.uint8)), downscale(np.asarray(masked, dtype=np.uint8)),
                np.asarray(actions, dtype=np.int64), np.asarray(features, dtype=np.float64), dict(meta))


def check_meta(meta: dict[str, Any]) -> None:
    """ValueError unless ``meta`` says where the episode comes from and which set it is in."""
    for key in ("source", "set", "level_seed"):
        if key not in meta:
            raise ValueError(f"a demonstration's meta needs {key!r} (source, set, level_seed), got {sorted(meta)}")
    if meta["set"] not in SETS:
        raise ValueError(f"a demonstration's set must be one of {SETS}, got {meta['set']!r}")


def save_demo(folder: Path, demo: Demo, action_names: Sequence[str]) -> Path:
    """Add ``demo`` to the demonstrations in ``folder`` (created if new) and its manifest.

    Raises:
        ValueError: ``demo.meta`` lacks source, set or level_seed; ``folder`` holds
            demonstrations with other actions.
    """
    check_meta(demo.meta)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    manifest = _read_manifest(folder) if (folder / MANIFEST).is_file() else {
        "format": FORMAT, "action_names": list(action_names), "frame": FRAME, "episodes": []}
    if manifest["action_names"] != list(action_names):
        raise ValueError(f"{folder} holds demonstrations over actions {manifest['action_names']}, not {list(action_names)}")
    name = f"{demo.meta['set']}_{len(manifest['episodes']):04d}.npz"
    np.savez_compressed(folder / name, frames=demo.frames, masked=demo.masked, actions=demo.actions,
                        features=demo.features)
    entry = {"preset": "small", "target": None, **demo.meta, "file": name, "steps": demo.steps}
    manifest["episodes"].append(entry)
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return folder / name


def _read_manifest(folder: Path) -> dict[str, Any]:
    path = Path(folder) / MANIFEST
    if not path.is_file():
        raise ValueError(f"{folder}: no demonstrations there (no {MANIFEST}; make some: evo demos make --out {folder})")
    try:
        manifest = json.loads(path.read_text())
        ok = manifest.get("format") == FORMAT and isinstance(manifest.get("episodes"), list)
    except (json.JSONDecodeError, AttributeError):
        ok = False
    if not ok:
        raise ValueError(f"{path}: not a demonstrations manifest of format {FORMAT}")
    return manifest


def action_names(folder: Path) -> tuple[str, ...]:
    """The actions the demonstrations in ``folder`` index."""
    return tuple(_read_manifest(folder)["action_names"])


def load_demos(folder: Path, demo_set: str | None = None) -> list[Demo]:
    """The demonstrations in ``folder`` in manifest order, only set ``demo_set`` when given.

    Raises:
        ValueError: no manifest, an unknown set, or a file the manifest names is missing.
    """
    if demo_set is not None and demo_set not in SETS:
        raise ValueError(f"demonstration set must be one of {SETS}, got {demo_set!r}")
    manifest = _read_manifest(folder)
    demos = []
    for entry in manifest["episodes"]:
        if demo_set is not None and entry["set"] != demo_set:
            continue
        path = Path(folder) / entry["file"]
        if not path.is_file():
            raise ValueError(f"{folder}/{MANIFEST} names {entry['file']}, which is missing")
        with np.load(path) as arrays:
            demos.append(Demo(arrays["frames"], arrays["masked"], arrays["actions"], arrays["features"], dict(entry)))
    return demos


def split_demos(demos: Sequence[Demo], seed: int, shares: tuple[float, float, float] = (0.7, 0.1, 0.2),
                ) -> tuple[list[Demo], list[Demo], list[Demo]]:
    """Training, validation and test demonstrations, whole episodes each (PPGTA: 70/10/20),
    drawn by ``seed``. With at least three episodes each part gets one.

    Raises:
        ValueError: fewer than three demonstrations.
    """
    if len(demos) < 3:
        raise ValueError(f"a 70/10/20 split needs at least 3 demonstrations, got {len(demos)}")
    order = np.random.default_rng(seed).permutation(len(demos))
    n_val = max(1, int(round(shares[1] * len(demos))))
    n_test = max(1, int(round(shares[2] * len(demos))))
    n_train = len(demos) - n_val - n_test
    parts = np.split(order, [n_train, n_train + n_val])
    return tuple([demos[i] for i in sorted(part)] for part in parts)  # type: ignore[return-value]


def demos_from_record(obs: np.ndarray, actions: np.ndarray, features: np.ndarray, frame_shape: Sequence[int],
                      boxes: Sequence[np.ndarray] | None = None, **meta: Any) -> Demo:
    """One episode of any agent's record as a demonstration.

    Args:
        obs: ``[T + 1, obs_dim]`` uint8 flat observations (RGB frames of ``frame_shape``;
            already OD-masked when the run had the ``detect`` wrapper).
        actions: ``[T]`` the actions played.
        features: ``[T + 1, F]`` state features.
        frame_shape: ``(3, H, W)``.
        boxes: Per frame the detector's boxes (``info.detections``), to make the masked
            frames; None: the observations are used as both.
        meta: source, set, level_seed, ...
    """
    frames = np.asarray(obs, dtype=np.uint8).reshape(-1, *frame_shape)
    masked = frames if boxes is None else od_mask(frames, boxes)
    check_meta(meta)
    return make_demo(frames, masked, actions, features, **meta)
