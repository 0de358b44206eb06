"""What every layer shares: the bottom of the engine, importing nothing of it.

``games`` is the lowest of the user's top-level folders, so what games, objectives, oracles
and the engine (``evo``) all build on lives here, below the game contract (:mod:`games.core`):
one :class:`~games.common.registry.Registry` for every kind of part an experiment names.
"""
