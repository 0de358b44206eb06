"""Games the engine can test, and the registry that finds them by name."""

from games.base import GameError, GameSpec, InjectedBug, VecStep, VectorGame
from games.rollout import Rollout, RolloutBatch
from games.registry import GameFactory, GameNotFound, register, registered

register(
    "block_maze",
    entry_point="games.block_maze:BlockMaze",
    vector_entry_point="games.block_maze:BlockMazeVector",
)
register(
    "cartpole_perf",
    entry_point="games.cartpole_perf:CartPolePerf",
    vector_entry_point="games.cartpole_perf:CartPolePerfVector",
)
register(
    "vizdoom",
    entry_point="games.vizdoom_game:VizDoomGame",
    vector_entry_point="games.vizdoom_game:VizDoomVector",
)
register(
    "doom_park",
    entry_point="games.doom_park:DoomPark",
    vector_entry_point="games.doom_park:DoomParkVector",
)
register(
    "dungeon",
    entry_point="games.dungeon:Dungeon",
    vector_entry_point="games.dungeon:DungeonVector",
)
register(
    "mspacman_perf",
    entry_point="games.mspacman:MsPacmanPerf",
    vector_entry_point="games.mspacman:MsPacmanPerfVector",
)
register(
    "montezuma",
    entry_point="games.montezuma:Montezuma",
    vector_entry_point="games.montezuma:MontezumaVector",
)

__all__ = [
    "GameError", "GameFactory", "GameNotFound", "GameSpec", "InjectedBug", "Rollout", "RolloutBatch",
    "VecStep", "VectorGame", "register", "registered",
]
