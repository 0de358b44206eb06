"""What every layer shares: the bottom of the engine, importing nothing of it.

``games`` is the lowest of the user's top-level folders, so what games, objectives, oracles
and the engine (``evo``) all build on lives here, below the game contract (:mod:`games.core`):
one :class:`~games.common.registry.Registry` for every kind of part an experiment names, the
run's seed streams (:mod:`games.common.seeds`), torch devices (:mod:`games.common.device`), and
the processes games start (:mod:`games.common.lifetime`, :mod:`games.common.process_tree`,
:mod:`games.common.process_memory`).
"""
