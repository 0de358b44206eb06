"""Train and score the masked inverse-dynamics encoder on frames of a game's levels.

Training frames come from random-ish play (each copy repeats its last action with
probability :data:`REPEAT`, else draws a new one uniformly, :func:`random_actions`) on levels
whose seeds are not 0, the level everything is scored on; the game plays them
(:class:`games.perception.training.data.Transitions`; the park's are
:func:`games.doom.park.data.transitions.transitions`). Each transition is a pair of adjacent
64x64 frames and the action between them; PPGTA (Section IV-A) greys one of the two, chosen at
random, outside the objects in view (OD mask). The boxes while training are the game's own
(the park's labels buffer): ground truth about where objects are, used only to make the
training input; at play time the mask comes from the detector (the ``detect`` wrapper).

The held-out accuracy is measured on the last of the levels played, held out of training
(:func:`split`); ``evo vision eval encoder`` plays level 0. Chance is 1/9: the labels are
uniform over PPGTA's 9 actions.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import torch

from games.perception.encoder import InverseDynamics
from games.perception.training.data import Transitions

REPEAT = 0.5
"""Probability that a copy repeats its last action (sticky random play walks further than
independent draws and still gives every action the same share)."""


def random_actions(rng: np.random.Generator, copies: int, steps: int, n_actions: int) -> np.ndarray:
    """``[steps, copies]`` sticky random actions (see :data:`REPEAT`)."""
    draws = rng.integers(0, n_actions, size=(steps, copies))
    repeat = rng.random((steps, copies)) < REPEAT
    for t in range(1, steps):
        draws[t] = np.where(repeat[t], draws[t - 1], draws[t])
    return draws


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
