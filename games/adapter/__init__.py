"""Any ``gymnasium.Env`` with a discrete action space, played as a vector game.

- :mod:`games.adapter.vector_game`: :class:`~games.adapter.vector_game.GymVectorGame`, N copies
  of a Gymnasium game behind the :class:`games.core.base.VectorGame` contract.
- :mod:`games.adapter.spec`, :mod:`games.adapter.observation_parts` and
  :mod:`games.adapter.derived_features`: the spec and state features of a game that declares
  none (Go-Explore's cells for images, each part's own for a ``Dict`` observation).
- :mod:`games.adapter.game_copy`: one copy and the conversions the engine needs.
- :mod:`games.adapter.process_runner` and :mod:`games.adapter.worker`: copies isolated in
  worker processes, so a hang, a dying process or a leak is a finding on one copy.
"""
