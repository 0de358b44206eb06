"""Train and score the imitation policy on demonstrations (PPGTA, Section IV-B).

The demonstrations of one set are split by episode 70/10/20 into training, validation and
test (:func:`games.perception.demos.split_demos`). The student reads OD-masked frames; a teacher,
an exponential moving average of the student's weights, reads the full frames; the loss is
PPGTA's Eq. 4: cross-entropy on the demonstrated action plus ``lambda`` times the
cross-entropy from the teacher's concatenated state ``h_c`` to the student's, both made
distributions by a softmax with DINO's temperatures and the teacher's centred (DINO, Caron et
al. 2021, which PPGTA extends). AdamW; the learning rate rises linearly over the first quarter
of the epochs from a fifth of its peak and then decays on a cosine (PPGTA's schedule shape:
10 of 40 epochs from 2e-3 to 1e-2); the weights kept are those of the epoch with the best
validation accuracy (early stopping). The encoder starts from the shipped encoder.

After training, the success threshold of test execution quality is set as PPGTA sets it: the
mean Jensen-Shannon divergence between the actions the policy takes on each validation
trajectory and the action distribution of the training demonstrations
(:mod:`games.perception.execution_quality`). On an object test it is taken over the steps
that execute the test, which need to know where the tested object stands: the game says
(:data:`games.perception.training.data.ObjectPlace`).
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import torch
from torch.nn import functional as F

from games.perception.demos import Demo
from games.perception.encoder import DEFAULT_WEIGHTS as ENCODER_WEIGHTS, load_model
from games.perception.execution_quality import execution_divergence
from games.perception.imitation import ImitationPolicy
from games.perception.training.data import ObjectPlace
from games.perception.training.object_test_end import object_test_stretch

LAMBDA = 0.1
"""Weight of the consistency loss (PPGTA's lambda; the paper gives no value)."""
EMA = 0.996
"""Teacher momentum (DINO's starting value)."""
STUDENT_T, TEACHER_T, CENTER = 0.1, 0.04, 0.9
"""DINO's student and teacher temperatures and the momentum of the teacher's centre."""


def _batch(demos: Sequence[Demo], masked: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """Frames ``[B, T, 3, 64, 64]`` (each episode's frames before its actions, zero-padded to
    the longest) and actions ``[B, T]`` (-1 where padded)."""
    t = max(d.steps for d in demos)
    frames = np.zeros((len(demos), t, 3, 64, 64), dtype=np.uint8)
    actions = np.full((len(demos), t), -1, dtype=np.int64)
    for i, d in enumerate(demos):
        frames[i, : d.steps] = (d.masked if masked else d.frames)[: d.steps]
        actions[i, : d.steps] = d.actions
    return torch.from_numpy(frames), torch.from_numpy(actions)


def predict(model: ImitationPolicy, demo: Demo, masked: bool = True) -> np.ndarray:
    """``[T]`` the action the policy takes (its most likely) at every step of ``demo``."""
    model.eval()
    with torch.inference_mode():
        frames, _ = _batch([demo], masked)
        return model(frames)[0].argmax(1).numpy()


def accuracy(model: ImitationPolicy, demos: Sequence[Demo], masked: bool = True) -> float:
    """Share of the steps of ``demos`` whose demonstrated action the policy takes."""
    if not demos:
        return float("nan")
    hits = sum(int((predict(model, d, masked) == d.actions).sum()) for d in demos)
    return hits / sum(d.steps for d in demos)


def executed_divergence(model: ImitationPolicy, demo: Demo, demonstrated: np.ndarray, place: ObjectPlace) -> float:
    """The JS divergence of the policy's actions on ``demo`` from the demonstrations' action
    distribution ``demonstrated``; on an object test, over the stretch that executes the test
    (:func:`object_test_stretch`, its object where ``place`` says)."""
    return execution_divergence(predict(model, demo)[object_test_stretch(demo, place(demo.meta))], demonstrated)


def success_threshold(model: ImitationPolicy, validation: Sequence[Demo], demonstrated: np.ndarray,
                      place: ObjectPlace) -> float:
    """PPGTA's success threshold: the mean :func:`executed_divergence` on each validation
    trajectory."""
    return float(np.mean([executed_divergence(model, d, demonstrated, place) for d in validation]))


def _lr(epoch: int, epochs: int, peak: float) -> float:
    warm = max(1, epochs // 4)
    if epoch < warm:
        return peak * (0.2 + 0.8 * epoch / warm)
    return peak * 0.5 * (1 + math.cos(math.pi * (epoch - warm) / max(1, epochs - warm)))


def train(train_demos: Sequence[Demo], val_demos: Sequence[Demo], *, epochs: int, seed: int, batch_size: int = 4,
          lr: float = 2e-3, lam: float = LAMBDA, patience: int = 10, encoder: Path | None = ENCODER_WEIGHTS,
          n_actions: int = 9, log: Callable[[int, float, float, float], None] | None = None) -> ImitationPolicy:
    """A fresh policy trained on ``train_demos``, kept at its best validation accuracy.

    Args:
        train_demos: Episodes to learn from.
        val_demos: Episodes that choose the epoch kept (and stop training ``patience``
            epochs after the best).
        epochs: Passes over ``train_demos`` at most.
        seed: Seeds the initial head and GRUs, and the order of episodes.
        batch_size: Episodes per gradient step.
        lr: Peak AdamW learning rate.
        lam: Weight of the teacher-student consistency.
        patience: Epochs without a better validation accuracy before stopping.
        encoder: Encoder weights to start from (None: a fresh encoder).
        n_actions: Actions.
        log: ``log(epoch, loss, train accuracy, validation accuracy)`` after each epoch.
    """
    if epochs < 1 or batch_size < 1 or not train_demos:
        raise ValueError(f"training needs epochs and batch size of at least 1 and some demonstrations, "
                         f"got {epochs}, {batch_size} and {len(train_demos)}")
    gen = np.random.default_rng(seed)
    with torch.random.fork_rng(devices=[]):  # module init and dropout draw from torch's default generator
        torch.manual_seed(seed)
        student = ImitationPolicy(n_actions)
        if encoder is not None:
            student.encoder.load_state_dict(load_model(encoder)[0].encoder.state_dict())
        teacher = copy.deepcopy(student).requires_grad_(False)
        centre = torch.zeros(student.head[0].in_features)
        opt = torch.optim.AdamW(student.parameters(), lr=lr)
        best, best_state, since = -1.0, copy.deepcopy(student.state_dict()), 0
        for epoch in range(epochs):
            for group in opt.param_groups:
                group["lr"] = _lr(epoch, epochs, lr)
            student.train()
            teacher.eval()
            order = gen.permutation(len(train_demos))
            losses, hits, steps = [], 0, 0
            for a in range(0, order.size, batch_size):
                chosen = [train_demos[i] for i in order[a:a + batch_size]]
                masked, actions = _batch(chosen, True)
                full, _ = _batch(chosen, False)
                h_s = student.states(masked)
                logits = student.head(h_s)
                valid = actions >= 0
                ce = F.cross_entropy(logits[valid], actions[valid])
                with torch.no_grad():
                    h_t = teacher.states(full)[valid]
                    target = torch.softmax((h_t - centre) / TEACHER_T, dim=1)
                consistency = -(target * torch.log_softmax(h_s[valid] / STUDENT_T, dim=1)).sum(1).mean()
                loss = ce + lam * consistency
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(student.parameters(), 1.0)
                opt.step()
                with torch.no_grad():
                    for pt, ps in zip(teacher.parameters(), student.parameters()):
                        pt.mul_(EMA).add_(ps.detach(), alpha=1 - EMA)
                    centre.mul_(CENTER).add_(h_t.mean(0), alpha=1 - CENTER)
                losses.append(float(loss.detach()))
                hits += int((logits[valid].argmax(1) == actions[valid]).sum())
                steps += int(valid.sum())
            val = accuracy(student, val_demos) if val_demos else hits / steps
            if log is not None:
                log(epoch, float(np.mean(losses)), hits / steps, val)
            if val > best:
                best, best_state, since = val, copy.deepcopy(student.state_dict()), 0
            else:
                since += 1
                if since >= patience:
                    break
        student.load_state_dict(best_state)
    return student.eval()
