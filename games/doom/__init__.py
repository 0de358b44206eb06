"""Doom through ViZDoom: the engine (:mod:`games.doom.engine`), a level's geometry
(:mod:`games.doom.level`), Doom's file formats (:mod:`games.doom.wad`, :mod:`games.doom.udmf`),
RELINE's load-testing level (:mod:`games.doom.vizdoom_game`) and PPGTA's generated park
(:mod:`games.doom.park`)."""
