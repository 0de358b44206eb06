"""What every game shares: the contracts and the machinery behind them.

- :mod:`games.core.base`: the game contract (:class:`~games.core.base.VectorGame`,
  :class:`~games.core.base.GameSpec`, :class:`~games.core.base.InjectedBug`) and what a plan
  agent needs from a game (routes, navigators).
- :mod:`games.core.scene`: what a game's frames show (objects of interest, their types, the
  camera, the preferred area), for the components that judge what agents saw.
- :mod:`games.core.record`: the record of play (:class:`~games.core.record.Rollout`,
  :class:`~games.core.record.RolloutBatch`), all that objectives and oracles see.
- :mod:`games.core.scalar_env`: the scalar ``gymnasium.Env`` derived from a vector game.
- :mod:`games.core.wrappers`: observation wrappers (what the agent sees, not what it plays).
- :mod:`games.core.buckets`: state buckets and how to count them.
- :mod:`games.common.seeds`: the experiment's seed streams (one per use of randomness) and
  the ranges seeds are drawn in.
- :mod:`games.core.frame_cost`: what a slow frame costs and the clocks that time a step.
- :mod:`games.common.lifetime`, :mod:`games.common.process_tree`, :mod:`games.common.process_memory`:
  the processes a game starts, and that they end with it.

A game family (``games/maze``, ``games/doom``, ...) imports from here and from the Gymnasium
adapter (``games/adapter``), never from another family.
"""

from games.core.base import GameError, GameSpec, InjectedBug, VecStep, VectorGame
from games.core.record import Rollout, RolloutBatch

__all__ = ["GameError", "GameSpec", "InjectedBug", "Rollout", "RolloutBatch", "VecStep", "VectorGame"]
