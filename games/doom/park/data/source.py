"""The park's ``perception_data``: what its registry entry lends the perception commands."""

from __future__ import annotations

from games.doom.park.data.demo_record import SpectatorPark, record
from games.doom.park.data.demos import ACTIONS, Corrector, object_place, park_demos
from games.doom.park.data.frames import park_frames
from games.doom.park.data.transitions import collect
from games.doom.park.data.walks import level_crops
from games.doom.park.layout import PRESETS
from games.perception.training.data import GameData

PARK_DATA = GameData(
    actions=ACTIONS, presets=tuple(PRESETS), frames=park_frames, transitions=collect, crops=level_crops,
    object_place=object_place, demos=park_demos, corrector=Corrector, spectator=SpectatorPark, record=record,
)
"""Labelled frames, random play, crops, where a demonstrated object stands, and
demonstrations: the park's (see :class:`games.perception.training.data.GameData`)."""
