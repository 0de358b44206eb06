"""A park generated from a seed and played in ViZDoom from pixels: PPGTA's open-world level.

:mod:`games.doom.park.layout` lays it out, :mod:`games.doom.park.wad` writes it as a Doom map,
:mod:`games.doom.park.doom_park` plays it, :mod:`games.doom.park.navigation` finds the way in it,
:mod:`games.doom.park.truth` knows its texture bugs and :mod:`games.doom.park.data` lends the
perception models its frames, crops and demonstrations.
"""
