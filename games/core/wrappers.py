"""Observation wrappers over vector games: what the agent sees, not the game it plays.

Gymnasium's ``ObservationWrapper`` for :class:`games.core.base.VectorGame`: a wrapper holds a
game and changes only its observations. A subclass overrides :meth:`ObservationWrapper.
observation` (``[N, *shape] -> [N, *new_shape]``) and :meth:`ObservationWrapper.obs_shape`
(the new shape, so ``game_spec.obs_shape`` stays true); rewards, done flags, state
features, frame times, errors and the ground truth pass through untouched, so two agents
that differ only in their wrappers play one game (``GameFactory.played``).

An experiment lists them under ``game.wrappers``, applied in order, first innermost::

    game: {name: ..., wrappers: [{name: grayscale},
                                 {name: resize, kwargs: {height: 48, width: 40}},
                                 {name: frame_stack, kwargs: {k: 4}}]}

This is where pixel detectors (object masks) and learned encoders (features from a frozen
network) will plug in: each is one more wrapper registered here with
:func:`register_wrapper`, whose ``observation`` maps a batch of frames to what the policy
reads. A game knows nothing of them.
"""

from __future__ import annotations

import abc
import dataclasses
import inspect
from typing import Any, Callable, ClassVar, Iterable, Mapping, Sequence

import numpy as np

from games.common.registry import Registry
from games.core.base import GameSpec, VecStep, VectorGame

WRAPPERS: Registry[type["ObservationWrapper"]] = Registry("wrapper", "evo.wrappers")
"""Wrapper classes by the name a YAML gives them; installed packages add theirs through the
``evo.wrappers`` entry-point group. Wrappers that carry torch models (:mod:`games.perception`) are
registered as ``"module:Class"``, imported the first time a YAML names them, so plain games
never load the models' code."""
WRAPPERS.add_lazy("detect", "games.perception.detect_wrapper:Detect")
WRAPPERS.add_lazy("encode", "games.perception.encode_wrapper:Encode")


def wrapper_class(name: str) -> type["ObservationWrapper"]:
    """The wrapper class a YAML calls ``name``.

    Raises:
        ValueError: no wrapper has that name (one line, listing the known ones).
    """
    return WRAPPERS[name]


def register_wrapper(name: str) -> Callable[[type["ObservationWrapper"]], type["ObservationWrapper"]]:
    """Make a wrapper class available to YAMLs as ``{name: <name>, kwargs: {...}}``."""
    return WRAPPERS.register(name)


class ObservationWrapper(abc.ABC):
    """A :class:`VectorGame` whose observations are those of ``game``, transformed.

    Attributes the wrapped game has beyond the protocol (``injected_bugs``, ``match``,
    ``render_map``, ...) are read through from it.

    Args:
        game: The vector game (or wrapper) to wrap.
    """

    runs_networks: ClassVar[bool] = False
    """Its observation runs torch networks: its constructor takes ``device`` (``cpu``,
    ``cuda``, ``cuda:N``), which an experiment's ``device`` fills in (:func:`on_device`)."""

    publishes: ClassVar[frozenset[str]] = frozenset()
    """The ``info`` keys its steps add (record columns ``info.<key>``), so that an experiment
    whose components read one without the wrapper is told so at its start (:func:`unpublished`)."""

    def __init__(self, game: VectorGame) -> None:
        self.game = game
        self.num_envs = game.num_envs
        self.game_spec = dataclasses.replace(
            game.game_spec, obs_shape=tuple(self.obs_shape(tuple(game.game_spec.obs_shape))),
            obs_dtype=self.obs_dtype(game.game_spec.obs_dtype),
            obs_encoder="",  # whatever a wrapper computes is no longer an encoder's features
        )
        self.stepped = np.ones(self.num_envs, dtype=bool)
        """Copies that the reset or step now observed moved: all after a reset, the copies
        still playing before a step (a finished copy keeps its observation)."""
        self.starting = True
        """True while observing a reset's first observations."""
        self._done = np.zeros(self.num_envs, dtype=bool)

    def obs_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """The shape of one observation after the wrapper, given the one before."""
        return shape

    def obs_dtype(self, dtype: str) -> str:
        """The dtype of the observations after the wrapper (``games.core.base.OBS_DTYPES``), given
        the one before: the same by default; a wrapper that computes (pools, weighs) gives
        float32."""
        return dtype

    @abc.abstractmethod
    def observation(self, obs: np.ndarray) -> np.ndarray:
        """``[N, *obs_shape of the game]`` -> ``[N, *self.game_spec.obs_shape]``, in
        ``self.game_spec.obs_dtype``."""

    def reset(self, seeds: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        obs, features = self.game.reset(seeds)
        self._done.fill(False)
        self.stepped.fill(True)
        self.starting = True
        return self.observation(obs), features

    def step(self, actions: np.ndarray) -> VecStep:
        out = self.game.step(actions)
        self.stepped = ~self._done
        self.starting = False
        self._done = self._done | out.terminated | out.truncated
        if out.errors:
            self._done[list(out.errors)] = True
        return dataclasses.replace(out, obs=self.observation(out.obs))

    def close(self) -> None:
        self.game.close()

    def __getattr__(self, name: str) -> Any:
        if name == "game":  # not set yet: no recursion through __getattr__
            raise AttributeError(name)
        if name == "reset_from":  # a snapshot holds the game, not what a wrapper keeps of it
            raise AttributeError(name)
        return getattr(self.game, name)


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


@register_wrapper("frame_stack")
class FrameStack(ObservationWrapper):
    """The last ``k`` observations, oldest first, concatenated along the first axis.

    ``(C, H, W)`` becomes ``(k * C, H, W)`` (DQN's stack of 4 frames, Mnih et al. 2015:
    ``(1, 48, 40)`` gives ``(4, 48, 40)``); ``(D,)`` becomes ``(k * D,)``. A reset fills
    the stack with its first observation; a finished copy's stack stays as it was.

    Args:
        game: The vector game to wrap.
        k: Observations kept.
    """

    def __init__(self, game: VectorGame, k: int = 4) -> None:
        self.k = _positive_int("k", k)
        super().__init__(game)
        inner = tuple(game.game_spec.obs_shape)
        self._stack = np.zeros((self.num_envs, self.k, *inner), dtype=self.game_spec.obs_dtype)

    def obs_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        return (self.k * shape[0], *shape[1:])

    def observation(self, obs: np.ndarray) -> np.ndarray:
        if self.starting:
            self._stack[:] = obs[:, None]
        else:
            rows = np.flatnonzero(self.stepped)
            self._stack[rows, :-1] = self._stack[rows, 1:]
            self._stack[rows, -1] = obs[rows]
        return self._stack.reshape(self.num_envs, *self.game_spec.obs_shape).copy()


@register_wrapper("resize")
class Resize(ObservationWrapper):
    """Images ``(C, H, W)`` shrunk to ``(C, height, width)`` by pooling whole blocks.

    ``H`` and ``width`` must be multiples of ``height`` and ``width``: each output pixel is
    the mean (``"area"``, OpenCV's ``INTER_AREA`` for integer factors) or the maximum
    (``"max"``, which keeps small bright sprites such as a dot) of its block.

    Args:
        game: The vector game to wrap.
        height: Rows of the output.
        width: Columns of the output.
        mode: ``"area"`` or ``"max"``.
    """

    MODES = ("area", "max")

    def __init__(self, game: VectorGame, height: int, width: int, mode: str = "area") -> None:
        self.height = _positive_int("height", height)
        self.width = _positive_int("width", width)
        if mode not in self.MODES:
            raise ValueError(f"mode must be one of {', '.join(self.MODES)}, got {mode!r}")
        self.mode = mode
        super().__init__(game)

    def obs_dtype(self, dtype: str) -> str:
        return "float32"

    def obs_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        if len(shape) != 3:
            raise ValueError(f"resize needs image observations (C, H, W), got shape {shape}")
        _, h, w = shape
        if h % self.height or w % self.width:
            raise ValueError(
                f"resize to {self.height}x{self.width} needs H and W multiples of them, "
                f"got {h}x{w}"
            )
        return (shape[0], self.height, self.width)

    def observation(self, obs: np.ndarray) -> np.ndarray:
        n, c, h, w = obs.shape
        fh, fw = h // self.height, w // self.width
        blocks = obs.reshape(n, c, self.height, fh, self.width, fw)
        pooled = blocks.max(axis=(3, 5)) if self.mode == "max" else blocks.mean(axis=(3, 5))
        return pooled.astype(np.float32, copy=False)


# ITU-R BT.601 luma weights, as ALE's and OpenCV's RGB-to-gray conversions use.
LUMA = np.array([0.299, 0.587, 0.114], dtype=np.float32)


@register_wrapper("grayscale")
class Grayscale(ObservationWrapper):
    """RGB images ``(3, H, W)`` as one gray channel ``(1, H, W)`` (BT.601 luma); images that
    are already gray, ``(1, H, W)``, pass unchanged.

    Args:
        game: The vector game to wrap.
    """

    def obs_dtype(self, dtype: str) -> str:
        return "float32"

    def obs_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        if len(shape) != 3 or shape[0] not in (1, 3):
            raise ValueError(f"grayscale needs image observations (3, H, W) or (1, H, W), got shape {shape}")
        return (1, *shape[1:])

    def observation(self, obs: np.ndarray) -> np.ndarray:
        if obs.shape[1] == 1:
            return obs
        return np.einsum("nchw,c->nhw", obs, LUMA, dtype=np.float32)[:, None]


WrapperSpec = tuple[str, Any]
"""``(name, kwargs)``: kwargs a mapping or a tuple of ``(key, value)`` pairs."""


def check_wrapper(name: str, kwargs: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` (one line) for an unknown wrapper or kwargs its class does not take.

    Values that depend on the game's observation (a resize of a vector) fail in :func:`wrap`.
    """
    cls = wrapper_class(name)
    try:
        inspect.signature(cls).bind(None, **dict(kwargs))
    except TypeError as exc:
        raise ValueError(f"wrapper {name!r}: {exc}") from None


def unpublished(columns: Iterable[str], wrapper_specs: Sequence[WrapperSpec]) -> dict[str, list[str]]:
    """The record columns ``info.<key>`` among ``columns`` that only wrappers publish
    (:attr:`ObservationWrapper.publishes`) and none of ``wrapper_specs`` does: each with the
    names of the wrappers that would."""
    listed = set().union(*(wrapper_class(name).publishes for name, _ in wrapper_specs))
    wanted = {c.removeprefix("info."): c for c in columns if c.startswith("info.")}
    wanted = {key: column for key, column in wanted.items() if key not in listed}
    if not wanted:
        return {}
    names = WRAPPERS.names()
    return {column: by for key, column in sorted(wanted.items())
            if (by := [n for n in names if key in wrapper_class(n).publishes])}


def on_device(wrapper_specs: Sequence[WrapperSpec], device: str) -> tuple[WrapperSpec, ...]:
    """The wrappers with ``device`` given to each that runs networks
    (:attr:`ObservationWrapper.runs_networks`) and names none itself; unchanged on the CPU,
    so a CPU experiment builds exactly the wrappers it always did."""
    if device == "cpu":
        return tuple(wrapper_specs)
    out = []
    for name, kwargs in wrapper_specs:
        pairs = dict(kwargs)
        if wrapper_class(name).runs_networks and "device" not in pairs:
            pairs["device"] = device
        out.append((name, tuple(sorted(pairs.items()))))
    return tuple(out)


def wrap(game: VectorGame, wrapper_specs: Sequence[WrapperSpec]) -> VectorGame:
    """``game`` inside the wrappers ``wrapper_specs`` names, the first innermost.

    Raises:
        ValueError: an unknown wrapper, a kwarg it does not take, or an observation it cannot
            transform (the game is closed first).
    """
    try:
        for name, kwargs in wrapper_specs:
            check_wrapper(name, dict(kwargs))
            game = wrapper_class(name)(game, **dict(kwargs))
    except BaseException:
        game.close()
        raise
    return game


@dataclasses.dataclass
class _SpecOnly:
    """A stand-in game with a spec and nothing to play, for checking wrappers' shapes."""

    game_spec: GameSpec
    num_envs: int = 1

    def close(self) -> None:
        """Nothing to release."""


def wrapped_spec(spec: GameSpec, wrapper_specs: Sequence[WrapperSpec]) -> GameSpec:
    """The spec a game with ``spec`` has inside the wrappers, without building the game.

    Raises:
        ValueError: as :func:`wrap` would.
    """
    return wrap(_SpecOnly(spec), wrapper_specs).game_spec  # type: ignore[arg-type]
