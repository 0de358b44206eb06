"""Gradient fine-tuning of offspring between generations (Wuji's DRL step)."""

from evo.finetune.a2c import A2CConfig, FinetuneStats, RewardFn, compute_gae, finetune

__all__ = ["A2CConfig", "FinetuneStats", "RewardFn", "compute_gae", "finetune"]
