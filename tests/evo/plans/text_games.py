"""The games the text-plan tests read into: the bug-free dungeon and the small park."""

from __future__ import annotations

from games import GameFactory

DUNGEON = GameFactory(name="dungeon", kwargs=(("bugs", ()),))
PARK = GameFactory(name="doom_park", kwargs=(("level_seed", 0), ("max_steps", 400), ("preset", "small")))
