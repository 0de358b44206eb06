"""Games the engine can test, and the registry that finds them by name."""

from games.core.base import GameError, GameSpec, InjectedBug, VecStep, VectorGame
from games.core.record import Rollout, RolloutBatch
from games.registry import GameFactory, GameNotFound, register, registered

register(
    "block_maze",
    entry_point="games.maze.block_maze:BlockMaze",
    vector_entry_point="games.maze.block_maze:BlockMazeVector",
)
register(
    "cartpole_perf",
    entry_point="games.classic.cartpole:CartPolePerf",
    vector_entry_point="games.classic.cartpole:CartPolePerfVector",
)
register(
    "vizdoom",
    entry_point="games.doom.vizdoom_game:VizDoomGame",
    vector_entry_point="games.doom.vizdoom_game:VizDoomVector",
)
register(
    "doom_park",
    entry_point="games.doom.park.doom_park:DoomPark",
    vector_entry_point="games.doom.park.doom_park:DoomParkVector",
    perception_data="games.doom.park.data.source:PARK_DATA",
)
register(
    "dungeon",
    entry_point="games.dungeon.dungeon:Dungeon",
    vector_entry_point="games.dungeon.dungeon:DungeonVector",
)
register(
    "mspacman_perf",
    entry_point="games.atari.mspacman:MsPacmanPerf",
    vector_entry_point="games.atari.mspacman:MsPacmanPerfVector",
)
register(
    "montezuma",
    entry_point="games.atari.montezuma:Montezuma",
    vector_entry_point="games.atari.montezuma:MontezumaVector",
)
register(
    "unreal",
    entry_point="games.unreal.unreal_game:UnrealGame",
    vector_entry_point="games.unreal.unreal_game:UnrealVector",
)

__all__ = [
    "GameError", "GameFactory", "GameNotFound", "GameSpec", "InjectedBug", "Rollout", "RolloutBatch",
    "VecStep", "VectorGame", "register", "registered",
]
