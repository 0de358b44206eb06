"""The dungeon: the explicit-plan article's example level as a benchmark game
(:mod:`games.dungeon.dungeon`), its layout with injected logic bugs (:mod:`games.dungeon.layout`)
and the navigation a plan agent uses (:mod:`games.dungeon.navigation`)."""

# ``games.dungeon`` was the game's module before the dungeon became a package: entry points
# written then (``games.dungeon:Dungeon``) find the classes here.
from games.dungeon.dungeon import Dungeon, DungeonVector

__all__ = ["Dungeon", "DungeonVector"]
