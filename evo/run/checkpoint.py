"""Checkpoints: tensors and JSON only, so opening a run directory never runs code from it.

A checkpoint holds the population (genomes, policy ids, objective values) as tensors and
everything else (generation counters, random generator states, objective and oracle state)
as one JSON string; ``torch.load(weights_only=True)`` reads both. Tensors inside that state
(an objective's learned model, say) are stored as tensors beside the JSON, which stands in for
each with its number (``{"__tensor__": "0"}``), and put back there on load, on the
CPU: a component moves them to its device in ``load_state_dict``.

A checkpoint is written to a temporary file, flushed to disk and renamed over its name, so a
kill leaves either the whole checkpoint or none. Only the last ``checkpoint.keep`` are kept,
and those the user pins: a 150-generation run would otherwise keep 150 (about 120 MB on the
Block Maze).
"""

from __future__ import annotations

import json
import logging
import os
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import torch
from pydantic import BaseModel, ConfigDict, Field

log = logging.getLogger(__name__)


class CheckpointConfig(BaseModel):
    """Which checkpoints a run keeps (``checkpoint:`` in the YAML)."""

    model_config = ConfigDict(extra="forbid")

    keep: int = Field(
        3, ge=1, description="The last this many checkpoints are kept; older ones are deleted "
        "(resume needs only the newest; the ones before it stand in if it is damaged)."
    )
    pin: list[Annotated[int, Field(ge=0)]] = Field(
        default_factory=list, description="Generations whose checkpoints are kept whatever keep says, e.g. [0, 50]."
    )


@dataclass
class Checkpoint:
    """The search state after a generation.

    Attributes:
        genomes: ``[P, D]`` float32 population.
        policy_ids: ``[P]`` ids of those policies.
        F: ``[P, M]`` their objective values.
        meta: JSON types and torch tensors: generation, env_steps, wall_s, rng states,
            objective and oracle state, coverage, hypervolume reference.
        cases: ``[P, M, E]`` per-episode scores, when parent selection uses them (lexicase).
    """

    genomes: np.ndarray
    policy_ids: np.ndarray
    F: np.ndarray
    meta: dict[str, Any]
    cases: np.ndarray | None = None


class CheckpointError(ValueError):
    """A run directory whose checkpoints cannot be resumed from; the message is one line."""


CORRUPT = (OSError, EOFError, RuntimeError, ValueError, KeyError, TypeError, pickle.UnpicklingError)
"""What loading a damaged checkpoint raises: a truncated zip (RuntimeError), a pickled object
that ``weights_only`` refuses (UnpicklingError), missing keys, JSON that does not parse."""


def checkpoint_path(run_dir: Path, generation: int) -> Path:
    return run_dir / "checkpoints" / f"gen_{generation:05d}.pt"


def save_checkpoint(run_dir: Path, ckpt: Checkpoint) -> Path:
    """Write atomically: a temporary file, fsynced, renamed over the name, the folder fsynced,
    so that a kill (or a power cut) never leaves half a checkpoint under a checkpoint's name."""
    path = checkpoint_path(run_dir, int(ckpt.meta["generation"]))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tensors: dict[str, torch.Tensor] = {}
    data = {
        "genomes": torch.from_numpy(np.ascontiguousarray(ckpt.genomes, dtype=np.float32)),
        "policy_ids": torch.from_numpy(np.asarray(ckpt.policy_ids, dtype=np.int64)),
        "F": torch.from_numpy(np.asarray(ckpt.F, dtype=np.float64)),
        "meta": _dump_meta(ckpt.meta, tensors),
        "tensors": tensors,
    }
    if ckpt.cases is not None:
        data["cases"] = torch.from_numpy(np.ascontiguousarray(ckpt.cases, dtype=np.float64))
    with open(tmp, "wb") as fh:
        torch.save(data, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)
    return path


def _fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def prune_checkpoints(run_dir: Path, config: CheckpointConfig) -> list[Path]:
    """Delete all but the newest ``config.keep`` checkpoints and the pinned ones; return those deleted."""
    pinned = {checkpoint_path(run_dir, g).name for g in config.pin}
    found = sorted((run_dir / "checkpoints").glob("gen_*.pt"))
    doomed = [p for p in found[: max(0, len(found) - config.keep)] if p.name not in pinned]
    for path in doomed:
        path.unlink(missing_ok=True)
    for tmp in (run_dir / "checkpoints").glob("*.tmp"):  # a write a kill cut short
        tmp.unlink(missing_ok=True)
    return doomed


def load_checkpoint(path: Path) -> Checkpoint:
    """Read a checkpoint (no code runs: ``weights_only``); its tensors land on the CPU."""
    data = torch.load(path, weights_only=True, map_location="cpu")
    return Checkpoint(
        genomes=data["genomes"].numpy(),
        policy_ids=data["policy_ids"].numpy(),
        F=data["F"].numpy(),
        meta=_put_tensors(json.loads(data["meta"]), data.get("tensors", {})),
        cases=data["cases"].numpy() if "cases" in data else None,
    )


TENSOR = "__tensor__"
"""Key of the JSON stand-in for a tensor: ``{"__tensor__": <its number>}``."""


def _dump_meta(meta: dict[str, Any], out: dict[str, torch.Tensor]) -> str:
    """``meta`` as JSON, every tensor replaced by its stand-in and collected in ``out``. The
    encoder meets tensors itself (its ``default``): walking the meta in Python first took a
    third of a generation of the large Block Maze (2 million objects a checkpoint)."""
    def stand_in(value: Any) -> dict[str, str]:
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
        key = str(len(out))
        out[key] = value.detach().cpu().clone()
        return {TENSOR: key}

    return json.dumps(meta, default=stand_in)


def _put_tensors(value: Any, tensors: dict[str, torch.Tensor]) -> Any:
    """The inverse of :func:`_dump_meta`, on the parsed JSON."""
    if isinstance(value, dict):
        if set(value) == {TENSOR}:
            return tensors[value[TENSOR]]
        return {k: _put_tensors(v, tensors) for k, v in value.items()}
    if isinstance(value, list):
        return [_put_tensors(v, tensors) for v in value]
    return value


def _why(exc: BaseException) -> str:
    """A few words on why a checkpoint did not load."""
    if isinstance(exc, pickle.UnpicklingError):
        return "it holds more than tensors and JSON, which weights_only refuses to run"
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0][:120]}" if lines else type(exc).__name__


def latest_checkpoint(run_dir: Path) -> Path | None:
    found = sorted((run_dir / "checkpoints").glob("gen_*.pt"))
    return found[-1] if found else None


def load_latest(run_dir: Path) -> Checkpoint | None:
    """The newest checkpoint that loads; None if there is none.

    A damaged one (cut short, or holding what ``weights_only`` refuses) is skipped with one
    warning line, and the one before it is tried.
    """
    for path in sorted((run_dir / "checkpoints").glob("gen_*.pt"), reverse=True):
        try:
            return load_checkpoint(path)
        except CORRUPT as exc:
            log.warning("checkpoint %s does not load (%s); trying the one before", path, _why(exc))
    return None
