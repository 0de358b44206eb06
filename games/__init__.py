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

from games.core.moved import install as install_moved  # noqa: E402

# Modules that moved (0.2, issue 27): old names in YAMLs, entry points and run directories
# still import, with a DeprecationWarning (games/core/moved.py).
install_moved({
    "games.base": "games.core.base",
    "games.buckets": "games.core.buckets",
    "games.rollout": "games.core.record",
    "games.vector_env": "games.core.scalar_env",
    "games.wrappers": "games.core.wrappers",
    "games.frame_cost": "games.core.frame_cost",
    "games.lifetime": "games.core.lifetime",
    "games.process_memory": "games.core.process_memory",
    "games.process_tree": "games.core.process_tree",
    "games.block_maze": "games.maze.block_maze",
    "games.maze_layout": "games.maze.layout",
    "games.maze_navigation": "games.maze.navigation",
    "games.dungeon_layout": "games.dungeon.layout",
    "games.dungeon_navigation": "games.dungeon.navigation",
    "games.mspacman_ram": "games.atari.mspacman_ram",
    "games.mspacman_screen": "games.atari.emulator",
    "games.mspacman": "games.atari.mspacman",
    "games.montezuma": "games.atari.montezuma",
    "games.cartpole_perf": "games.classic.cartpole",
    "games.doom_engine": "games.doom.engine",
    "games.doom_level": "games.doom.level",
    "games.vizdoom_game": "games.doom.vizdoom_game",
    "games.wad": "games.doom.wad",
    "games.udmf": "games.doom.udmf",
    "games.doom_park": "games.doom.park.doom_park",
    "games.park_layout": "games.doom.park.layout",
    "games.park_navigation": "games.doom.park.navigation",
    "games.park_truth": "games.doom.park.truth",
    "games.park_wad": "games.doom.park.wad",
    "games.gym_adapter": "games.adapter.vector_game",
    "games.gym_copy": "games.adapter.game_copy",
    "games.gym_process": "games.adapter.process_runner",
    "games.gym_worker": "games.adapter.worker",
    "games.gym_spec": "games.adapter.spec",
    "games.cells": "games.adapter.derived_features",
})
