"""Checkpoints: tensors and JSON only, so opening a run directory never runs code from it.

A checkpoint holds the population (genomes, policy ids, objective values) as tensors and
everything else (generation counters, random generator states, objective and oracle state)
as one JSON string; ``torch.load(weights_only=True)`` reads both.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch


@dataclass
class Checkpoint:
    """The search state after a generation.

    Attributes:
        genomes: ``[P, D]`` float32 population.
        policy_ids: ``[P]`` ids of those policies.
        F: ``[P, M]`` their objective values.
        meta: JSON-able state: generation, env_steps, wall_s, rng states, objective and
            oracle state, coverage, hypervolume reference.
        cases: ``[P, M, E]`` per-episode scores, when parent selection uses them (lexicase).
    """

    genomes: np.ndarray
    policy_ids: np.ndarray
    F: np.ndarray
    meta: dict[str, Any]
    cases: np.ndarray | None = None


def checkpoint_path(run_dir: Path, generation: int) -> Path:
    return run_dir / "checkpoints" / f"gen_{generation:05d}.pt"


def save_checkpoint(run_dir: Path, ckpt: Checkpoint) -> Path:
    """Write atomically (temp file + rename) so a kill never leaves half a checkpoint."""
    path = checkpoint_path(run_dir, int(ckpt.meta["generation"]))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    data = {
        "genomes": torch.from_numpy(np.ascontiguousarray(ckpt.genomes, dtype=np.float32)),
        "policy_ids": torch.from_numpy(np.asarray(ckpt.policy_ids, dtype=np.int64)),
        "F": torch.from_numpy(np.asarray(ckpt.F, dtype=np.float64)),
        "meta": json.dumps(ckpt.meta),
    }
    if ckpt.cases is not None:
        data["cases"] = torch.from_numpy(np.ascontiguousarray(ckpt.cases, dtype=np.float64))
    torch.save(data, tmp)
    os.replace(tmp, path)
    return path


def load_checkpoint(path: Path) -> Checkpoint:
    data = torch.load(path, weights_only=True)
    return Checkpoint(
        genomes=data["genomes"].numpy(),
        policy_ids=data["policy_ids"].numpy(),
        F=data["F"].numpy(),
        meta=json.loads(data["meta"]),
        cases=data["cases"].numpy() if "cases" in data else None,
    )


def latest_checkpoint(run_dir: Path) -> Path | None:
    found = sorted((run_dir / "checkpoints").glob("gen_*.pt"))
    return found[-1] if found else None
