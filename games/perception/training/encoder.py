"""Train and score the masked inverse-dynamics encoder on frames of generated parks.

    evo vision train encoder --out games/perception/weights/encoder.pt --levels 1-6 --steps 2000 --seed 0
    evo vision eval encoder --level-seed 0

Training frames come from random-ish play (each copy repeats its last action with
probability :data:`REPEAT`, else draws a new one uniformly) on park levels whose seeds are
not 0, the level everything is scored on. Each transition is a pair of adjacent 64x64 frames
and the action between them; PPGTA (Section IV-A) greys one of the two, chosen at random,
outside the objects in view (OD mask). The boxes while training are the labels buffer's
(``DoomParkVector.visible``): ground truth about where objects are, used only to make the
training input; at play time the mask comes from the detector (the ``detect`` wrapper).

The held-out accuracy is measured on the last level of ``--levels`` (never trained on);
``eval`` plays level 0. Chance is 1/9: the labels are uniform over PPGTA's 9 actions.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import torch
from rich.console import Console
from rich.table import Table

from games.core.seeds import EPISODE_SEED_MAX
from games.perception.base import od_mask
from games.perception.encoder import DEFAULT_WEIGHTS, InverseDynamics, downscale, load_model, save_model

REPEAT = 0.5
"""Probability that a copy repeats its last action (sticky random play walks further than
independent draws and still gives every action the same share)."""
EVAL_LEVEL = 0
"""The level every model of :mod:`games.perception` is scored on; never trained on."""


@dataclass(frozen=True)
class Transitions:
    """Adjacent frame pairs and the actions between them.

    Attributes:
        frames: ``[F, 3, 64, 64]`` uint8 frames as the game showed them (downscaled).
        masked: ``[F, 3, 64, 64]`` the same frames, OD-masked at full resolution first.
        before: ``[M]`` index of each transition's first frame.
        after: ``[M]`` index of its second frame.
        actions: ``[M]`` int64 the action played between them.
        level: ``[M]`` the park level it was played on.
    """

    frames: np.ndarray
    masked: np.ndarray
    before: np.ndarray
    after: np.ndarray
    actions: np.ndarray
    level: np.ndarray

    def __len__(self) -> int:
        return int(self.actions.shape[0])


def parse_levels(text: str) -> tuple[int, ...]:
    """``"1-6"``, ``"3"`` or ``"1,4,7-9"`` -> level seeds in order.

    Raises:
        ValueError: anything else, or a seed below 0.
    """
    levels: list[int] = []
    try:
        for part in str(text).split(","):
            lo, sep, hi = part.strip().partition("-")
            first, last = int(lo), int(hi) if sep else int(lo)
            if first < 0 or last < first:
                raise ValueError
            levels.extend(range(first, last + 1))
    except ValueError:
        raise ValueError(f"--levels must be seeds such as 1-6 or 1,3,5 (non-negative, ascending ranges), got {text!r}") from None
    return tuple(levels)


def random_actions(rng: np.random.Generator, copies: int, steps: int, n_actions: int) -> np.ndarray:
    """``[steps, copies]`` sticky random actions (see :data:`REPEAT`)."""
    draws = rng.integers(0, n_actions, size=(steps, copies))
    repeat = rng.random((steps, copies)) < REPEAT
    for t in range(1, steps):
        draws[t] = np.where(repeat[t], draws[t - 1], draws[t])
    return draws


def collect(levels: Sequence[int], steps: int, copies: int, seed: int, preset: str = "small") -> Transitions:
    """Play ``steps`` transitions on each park level (split over ``copies`` engines).

    Args:
        levels: Park level seeds.
        steps: Transitions per level.
        copies: Engines per level, stepped together.
        seed: Seeds the episodes and the actions.
        preset: Park size.
    """
    from games.doom.park.doom_park import ACTIONS, DoomParkVector  # vizdoom only when collecting

    if steps < 1 or copies < 1:
        raise ValueError(f"--steps and --copies must be at least 1, got {steps} and {copies}")
    rng = np.random.default_rng(seed)
    per_copy = -(-steps // copies)
    frames, masked, before, after, actions, level_of = [], [], [], [], [], []
    count = 0
    for level in levels:
        game = DoomParkVector(copies, level_seed=int(level), preset=preset, max_steps=per_copy)
        try:
            obs, _ = game.reset(rng.integers(0, EPISODE_SEED_MAX, size=copies).tolist())
            plan = random_actions(rng, copies, per_copy, len(ACTIONS))
            index = np.zeros((per_copy + 1, copies), dtype=np.int64)
            alive = np.ones(copies, dtype=bool)
            for t in range(per_copy + 1):
                boxes = [np.array([v.box for v in seen], dtype=np.int64).reshape(-1, 4) for seen in game.visible]
                frames.append(downscale(obs))
                masked.append(downscale(od_mask(obs, boxes)))
                index[t] = count + np.arange(copies)
                count += copies
                if t == per_copy:
                    break
                out = game.step(plan[t])
                ok = alive.copy()
                ok[list(out.errors)] = False
                for i in np.flatnonzero(ok):
                    before.append(index[t, i])
                    after.append(count + i)
                    actions.append(plan[t, i])
                    level_of.append(level)
                alive = ok
                obs = out.obs
        finally:
            game.close()
    keep = np.arange(len(actions))
    if len(keep) > steps * len(levels):  # the copies' last share rounds up: trim per level
        level_arr = np.asarray(level_of)
        keep = np.concatenate([np.flatnonzero(level_arr == lv)[:steps] for lv in levels])
    return Transitions(
        frames=np.concatenate(frames), masked=np.concatenate(masked),
        before=np.asarray(before, dtype=np.int64)[keep], after=np.asarray(after, dtype=np.int64)[keep],
        actions=np.asarray(actions, dtype=np.int64)[keep], level=np.asarray(level_of, dtype=np.int64)[keep],
    )


def pairs(data: Transitions, rows: np.ndarray, rng: np.random.Generator | None) -> tuple[torch.Tensor, torch.Tensor]:
    """Frames before and after of transitions ``rows``, one of each pair OD-masked: which one
    drawn from ``rng`` (PPGTA: one of the two adjacent frames, at random); ``rng`` None: none
    masked."""
    b, a = data.before[rows], data.after[rows]
    if rng is None:
        return torch.from_numpy(data.frames[b]), torch.from_numpy(data.frames[a])
    first = rng.random(rows.shape[0]) < 0.5
    before = np.where(first[:, None, None, None], data.masked[b], data.frames[b])
    after = np.where(first[:, None, None, None], data.frames[a], data.masked[a])
    return torch.from_numpy(before), torch.from_numpy(after)


def predict(model: InverseDynamics, data: Transitions, rows: np.ndarray, rng: np.random.Generator | None,
            batch: int = 512) -> np.ndarray:
    """The model's action for each transition in ``rows`` (masking as :func:`pairs`)."""
    out = np.empty(rows.shape[0], dtype=np.int64)
    model.eval()
    with torch.inference_mode():
        for a in range(0, rows.shape[0], batch):
            before, after = pairs(data, rows[a:a + batch], rng)
            out[a:a + batch] = model(before, after).argmax(1).numpy()
    return out


def accuracy(model: InverseDynamics, data: Transitions, rows: np.ndarray, seed: int, masked: bool = True) -> float:
    """Share of transitions ``rows`` whose action the model names (one frame of each pair
    masked, which one seeded by ``seed``, unless ``masked`` is False)."""
    if rows.size == 0:
        return float("nan")
    rng = np.random.default_rng(seed) if masked else None
    return float((predict(model, data, rows, rng) == data.actions[rows]).mean())


def train(data: Transitions, rows: np.ndarray, *, epochs: int, seed: int, batch_size: int = 128, lr: float = 1e-3,
          n_actions: int = 9, log: Callable[[int, float, float], None] | None = None) -> InverseDynamics:
    """Train a fresh model on transitions ``rows`` by masked inverse dynamics (cross-entropy
    on the action, PPGTA's Eq. 3; AdamW as PPGTA uses throughout).

    Args:
        data: The transitions.
        rows: Which of them to train on.
        epochs: Passes over ``rows``.
        seed: Seeds the initial weights, the batches and which frame is masked.
        batch_size: Transitions per step.
        lr: AdamW's learning rate.
        n_actions: Actions to tell apart.
        log: Called as ``log(epoch, mean loss, train accuracy)`` after each epoch.
    """
    if epochs < 1 or batch_size < 1 or rows.size == 0:
        raise ValueError(f"training needs epochs and batch size of at least 1 and some transitions, "
                         f"got {epochs}, {batch_size} and {rows.size}")
    gen = np.random.default_rng(seed)
    with torch.random.fork_rng(devices=[]):  # nn.Module init draws from torch's default generator
        torch.manual_seed(seed)
        model = InverseDynamics(n_actions)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    for epoch in range(epochs):
        model.train()
        order = gen.permutation(rows)
        losses, hits = [], 0
        for a in range(0, order.size, batch_size):
            batch = order[a:a + batch_size]
            before, after = pairs(data, batch, gen)
            logits = model(before, after)
            target = torch.from_numpy(data.actions[batch])
            loss = torch.nn.functional.cross_entropy(logits, target)
            opt.zero_grad()
            loss.backward()
            # Clipped: without it a run that has begun to learn can fall back to chance.
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            losses.append(float(loss.detach()))
            hits += int((logits.argmax(1) == target).sum())
        if log is not None:
            log(epoch, float(np.mean(losses)), hits / order.size)
    return model.eval()


def split(data: Transitions) -> tuple[np.ndarray, np.ndarray]:
    """Training and held-out rows: the last level held out when there are several, else the
    last fifth of the transitions."""
    levels = np.unique(data.level)
    rows = np.arange(len(data))
    if levels.size > 1:
        held = data.level == data.level.max()
        return rows[~held], rows[held]
    cut = int(len(data) * 0.8)
    return rows[:cut], rows[cut:]


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``evo vision train encoder``."""
    parser.add_argument("--out", type=Path, default=DEFAULT_WEIGHTS, help="where to write the weights")
    parser.add_argument("--levels", default="1-6", help="park level seeds to play, e.g. 1-6 (not 0: the evaluation level); the last is held out")
    parser.add_argument("--steps", type=int, default=2000, help="transitions played per level")
    parser.add_argument("--copies", type=int, default=4, help="engines per level, stepped together")
    parser.add_argument("--epochs", type=int, default=20, help="passes over the training transitions")
    parser.add_argument("--batch-size", type=int, default=64, help="transitions per gradient step")
    parser.add_argument("--lr", type=float, default=1e-3, help="AdamW learning rate")
    parser.add_argument("--preset", default="small", help="park size: small or large")
    parser.add_argument("--seed", type=int, default=0, help="seeds play, initial weights, batches and masks")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")


def train_command(args: argparse.Namespace, console: Console) -> int:
    """Collect, train, report held-out accuracy against chance, write the weights."""
    levels = parse_levels(args.levels)
    if EVAL_LEVEL in levels:
        raise ValueError(f"--levels must not include {EVAL_LEVEL}, the level the encoder is scored on, got {args.levels!r}")
    torch.set_num_threads(max(1, int(args.threads)))
    start = time.perf_counter()
    data = collect(levels, args.steps, args.copies, args.seed, args.preset)
    train_rows, held = split(data)
    console.print(f"collected {len(data)} transitions on levels {args.levels} in {time.perf_counter() - start:.1f} s; "
                  f"training on {train_rows.size}, holding out {held.size}")

    def log(epoch: int, loss: float, acc: float) -> None:
        console.print(f"epoch {epoch + 1}/{args.epochs}: loss {loss:.3f}, train accuracy {acc:.3f}, "
                      f"{time.perf_counter() - start:.0f} s")

    model = train(data, train_rows, epochs=args.epochs, seed=args.seed, batch_size=args.batch_size, lr=args.lr, log=log)
    chance = 1.0 / model.n_actions
    held_acc = accuracy(model, data, held, args.seed + 1)
    console.print(f"held-out action accuracy {held_acc:.3f} (one frame masked; chance {chance:.3f}), "
                  f"{held.size} transitions")
    meta = {"levels": args.levels, "steps": args.steps, "copies": args.copies, "epochs": args.epochs,
            "batch_size": args.batch_size, "lr": args.lr, "seed": args.seed, "preset": args.preset,
            "held_out_accuracy": held_acc, "seconds": round(time.perf_counter() - start, 1)}
    save_model(model, args.out, meta)
    console.print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB) in {time.perf_counter() - start:.0f} s")
    return 0


def add_eval_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``evo vision eval encoder``."""
    parser.add_argument("--weights", type=Path, default=DEFAULT_WEIGHTS, help="the encoder to score")
    parser.add_argument("--level-seed", type=int, default=EVAL_LEVEL, help="park level to play")
    parser.add_argument("--steps", type=int, default=2000, help="transitions to play")
    parser.add_argument("--copies", type=int, default=4, help="engines, stepped together")
    parser.add_argument("--preset", default="small", help="park size: small or large")
    parser.add_argument("--seed", type=int, default=0, help="seeds play and masks")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")


def eval_command(args: argparse.Namespace, console: Console) -> int:
    """Inverse-dynamics accuracy on an unseen level, overall and per action."""
    from games.doom.park.doom_park import ACTIONS

    if args.level_seed < 0:
        raise ValueError(f"--level-seed must be a non-negative integer, got {args.level_seed}")
    model, meta = load_model(args.weights)
    torch.set_num_threads(max(1, int(args.threads)))
    data = collect((args.level_seed,), args.steps, args.copies, args.seed, args.preset)
    rows = np.arange(len(data))
    masked = predict(model, data, rows, np.random.default_rng(args.seed + 1))
    plain = predict(model, data, rows, None)
    table = Table(title=f"inverse dynamics on level {args.level_seed} ({len(data)} transitions, "
                        f"trained on levels {meta.get('levels', '?')})")
    for column in ("action", "transitions", "accuracy (one masked)", "accuracy (unmasked)"):
        table.add_column(column, justify="left" if column == "action" else "right")
    for k, name in enumerate(ACTIONS):
        mine = data.actions == k
        table.add_row(name, str(int(mine.sum())), f"{(masked[mine] == k).mean():.3f}", f"{(plain[mine] == k).mean():.3f}")
    table.add_row("all", str(len(data)), f"{(masked == data.actions).mean():.3f}", f"{(plain == data.actions).mean():.3f}")
    console.print(table)
    console.print(f"chance {1.0 / model.n_actions:.3f}")
    return 0
