"""Gradient fine-tuning of offspring between generations (Wuji's DRL step): A2C or PPO.

:mod:`evo.search.finetune.base` holds the contracts and the registry, :mod:`evo.search.finetune.loop` the
loop that knows no algorithm; importing this package registers both algorithms.
"""

from evo.search.finetune import a2c, ppo  # noqa: F401  (register themselves)
from evo.search.finetune.a2c import A2CConfig
from evo.search.finetune.base import (
    DIAGNOSTICS,
    ALGORITHMS,
    Batch,
    Diagnostics,
    UpdateConfig,
    Updater,
    compute_gae,
    register,
)
from evo.search.finetune.loop import FinetuneStats, RewardFn, finetune
from evo.search.finetune.ppo import PPOConfig

__all__ = [
    "A2CConfig",
    "Batch",
    "DIAGNOSTICS",
    "Diagnostics",
    "FinetuneStats",
    "PPOConfig",
    "ALGORITHMS",
    "RewardFn",
    "UpdateConfig",
    "Updater",
    "compute_gae",
    "finetune",
    "register",
]
