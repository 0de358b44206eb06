"""Game facts: what reports and plots need to know about a run's game, kept in ``game.json``.

A run writes its game's spec, injected bugs (ground truth, where the game has it), map
(``render_map()``, where it has one) and scene (``scene``, where it has one: objects of
interest, their types, the camera, the preferred area; :mod:`games.core.scene`) into
``game.json`` when it starts, so that ``evo report`` and ``evo compare`` read them from the run
directory and never build a live game: a game that is slow to start, needs an engine, or is
no longer installed still reports. A run directory written before ``game.json`` existed falls
back to building its game once; one whose ``game.json`` holds the park's objects of interest
and preferred area at its top (before 0.2) is moved to today's shape by ``evo migrate``
(:mod:`evo.run.migrate`).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evo.run.scene_json import scene_from_json, scene_to_json
from evo.run.user_paths import ConfigError
from games.adapter.wrapper_attrs import WrappedGame
from games.core.base import GameSpec, InjectedBug
from games.core.scene import Scene

GAME = "game.json"


@dataclass(frozen=True)
class GameFacts:
    """What scoring and plotting a run need from its game.

    Attributes:
        label: The game and its kwargs, e.g. ``block_maze(maze_seed=0, preset=large)``;
            strategies are only compared with others on the same label.
        spec: The game's :class:`games.core.base.GameSpec`.
        has_truth: The game knows its injected bugs (``match``); bugs found then means
            distinct injected bugs found, otherwise bug reports.
        injected: The game's ground truth (``injected_bugs``), empty without it.
        walls: The optional ``render_map()`` of the game: 2-D, 1 = wall, indexed by the
            buckets of the first two state features; None when the game has none.
        scene: The game's optional ``scene`` (:class:`games.core.scene.Scene`: objects of
            interest, their types, the camera, the preferred area indexed like ``walls``);
            None when the game has none.
    """

    label: str
    spec: GameSpec
    has_truth: bool
    injected: tuple[InjectedBug, ...]
    walls: np.ndarray | None
    scene: Scene | None = None

    @classmethod
    def of_game(cls, label: str, spec: GameSpec, game: Any) -> "GameFacts":
        """Read the facts off a live game (its optional ``match``, ``injected_bugs``,
        ``render_map`` and ``scene``, duck-typed as the game contract allows)."""
        has_truth = hasattr(game, "match")
        injected = tuple(getattr(game, "injected_bugs", ())) if has_truth else ()
        render_map = getattr(game, "render_map", None)
        walls = np.asarray(render_map()) if callable(render_map) else None
        return cls(label, spec, has_truth, injected, walls, getattr(game, "scene", None))

    def map_cells(self, features: Any) -> np.ndarray:
        """``[..., 2]`` (row, column) on the map of states ``[..., F]``: the buckets of the
        first two state features (row 0 for a game with one)."""
        states = np.asarray(features, dtype=np.float64)
        if states.size == 0:  # no states (a game without injected bugs): no cells
            states = states.reshape(0, self.spec.n_features)
        b = self.spec.buckets(states)
        return b[..., :2] if b.shape[-1] >= 2 else np.stack([np.zeros_like(b[..., 0]), b[..., 0]], axis=-1)

    def map_frame(self, cells: Any = ()) -> tuple[tuple[int, int], tuple[int, int]]:
        """The part of the map to draw: ``((first row, first column), (rows, columns))``.

        The game's ``feature_bins`` cells, grown to hold ``cells`` ``[K, 2]``: an open
        feature's cells go on past its first bins (``GameSpec.feature_open``), and a map must
        show every cell a run reached there.
        """
        bins = self.spec.feature_bins
        shape = np.array([bins[0], bins[1]] if len(bins) >= 2 else [1, bins[0]], dtype=np.int64)
        low, high = np.zeros(2, dtype=np.int64), shape - 1
        cells = np.asarray(cells, dtype=np.int64).reshape(-1, 2)
        if len(cells):
            low, high = np.minimum(low, cells.min(axis=0)), np.maximum(high, cells.max(axis=0))
        return (int(low[0]), int(low[1])), (int(high[0] - low[0] + 1), int(high[1] - low[1] + 1))

    def to_json(self) -> dict[str, Any]:
        """``game.json``'s content: label, spec, injected bugs (None without ground truth),
        map (a nested list, None without one) and scene (:func:`evo.run.scene_json.scene_to_json`,
        None without one)."""
        return {
            "label": self.label,
            "spec": dataclasses.asdict(self.spec),
            "injected_bugs": [
                {"id": int(b.id), "kind": b.kind, "location": [float(x) for x in b.location],
                 "description": b.description}
                for b in self.injected
            ] if self.has_truth else None,
            "map": None if self.walls is None else self.walls.tolist(),
            "scene": None if self.scene is None else scene_to_json(self.scene),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "GameFacts":
        """The inverse of :meth:`to_json`."""
        names = {f.name for f in dataclasses.fields(GameSpec)}
        spec = GameSpec(**{k: tuple(v) if isinstance(v, list) else v
                           for k, v in data["spec"].items() if k in names})
        bugs = data.get("injected_bugs")
        injected = tuple(
            InjectedBug(int(b["id"]), b["kind"], tuple(float(x) for x in b["location"]),
                        b.get("description", ""))
            for b in bugs or ()
        )
        walls = None if data.get("map") is None else np.asarray(data["map"])
        return cls(data["label"], spec, bugs is not None, injected, walls, scene_from_json(data))


def game_label(game: dict[str, Any]) -> str:
    """``name(k=v, ...)`` of a run's ``game`` config section."""
    source = game.get("name") or game.get("entry_point") or game.get("gym_id") or "?"
    kwargs = ", ".join(f"{k}={v}" for k, v in sorted((game.get("kwargs") or {}).items()))
    return f"{source}({kwargs})"


def write_game_facts(run_dir: Path, facts: GameFacts) -> Path:
    """Write ``game.json`` into a run directory."""
    path = run_dir / GAME
    path.write_text(json.dumps(facts.to_json(), default=_plain))
    return path


def _plain(value: Any) -> Any:
    """numpy numbers and arrays in a game's spec as JSON numbers and lists."""
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} in a game's facts is not JSON")


def read_game_facts(run_dir: Path) -> GameFacts | None:
    """The run's ``game.json``, None for a run directory written without one."""
    path = run_dir / GAME
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    if "scene" not in data and ("objects" in data or "preferred" in data):
        raise ConfigError(f"{path}: written before 0.2 (the scene at the top of the file); "
                          f"run evo migrate {run_dir} to move it")
    return GameFacts.from_json(data)


def build_game_facts(config: dict[str, Any]) -> GameFacts:
    """Build the game of a run's resolved config once (cached per game section) and read
    its facts: the fallback for run directories without ``game.json``."""
    key = json.dumps(config["game"], sort_keys=True)
    if key not in _BUILT:
        from evo.run.config import game_factory, parse_experiment
        from evo.run.device import on_this_machine

        factory = game_factory(on_this_machine(parse_experiment(config)))
        spec = factory.spec()
        env = factory.make_env()
        try:
            _BUILT[key] = GameFacts.of_game(game_label(config["game"]), spec, WrappedGame(env))
        finally:
            env.close()
    return _BUILT[key]


_BUILT: dict[str, GameFacts] = {}
