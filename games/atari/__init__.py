"""Atari games on bare ALE: MsPacman with RELINE's injected performance bugs
(:mod:`games.atari.mspacman`, its RAM in :mod:`games.atari.mspacman_ram`) and Montezuma's
Revenge (:mod:`games.atari.montezuma`), both on the emulator of :mod:`games.atari.emulator`."""
