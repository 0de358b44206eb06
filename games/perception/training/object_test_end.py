"""Fit and score the head that ends object tests (:mod:`games.perception.object_test_end`).

The head is a logistic regression on the object-test policy's state ``h_c``, fit on the
object-test demonstrations: a step is labelled done once the demonstration's test has
completed by the objects oracle's rule (:func:`object_test_stretch`). It is fit on the
policy's training episodes (the same 70/10/20 split by the same seed) and scored on its test
episodes: ROC AUC, and how many steps after the true completion the rule ends the test
(negative: before it, which costs the test). Where a demonstration's object stands is the game's to say
(:data:`games.perception.training.data.ObjectPlace`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch
from scipy.stats import mannwhitneyu
from torch.nn import functional as F

from games.perception.demos import Demo, split_demos
from games.perception.execution_quality import demonstrated_window
from games.perception.imitation import ImitationPolicy, load_policy, save_policy
from games.perception.object_test_end import EndHead, fires
from games.perception.training.data import ObjectPlace


def policy_states(model: ImitationPolicy, demo: Demo) -> torch.Tensor:
    """``[T, D]`` the policy's state ``h_c`` at each step of ``demo``, on its OD-masked frames,
    as it plays them step by step from a fresh memory."""
    model.eval()
    with torch.inference_mode():
        frames = torch.from_numpy(np.ascontiguousarray(demo.masked[: demo.steps]))
        return model.states(frames[None])[0]


def object_test_stretch(demo: Demo, place: tuple[float, float] | None) -> slice:
    """The steps of an object-test demonstration whose object stands at ``place`` that execute
    its test by the objects oracle's rule
    (:func:`games.perception.execution_quality.demonstrated_window`), as an executed test is
    scored; the whole trajectory for a path demonstration (``place`` None), or a test never
    completed."""
    if place is None:
        return slice(None)
    window = demonstrated_window(demo.features, place)
    return slice(None) if window is None else slice(window[0], window[1] + 1)


def done_labels(demo: Demo, place: ObjectPlace) -> np.ndarray | None:
    """``[T]`` 1.0 from the step after the one that completes the demonstration's test; None
    when it never completes one."""
    stretch = object_test_stretch(demo, place(demo.meta))
    if stretch.stop is None:
        return None
    return (np.arange(demo.steps) >= stretch.stop).astype(np.float32)


def _dataset(model: ImitationPolicy, demos: Sequence[Demo],
             place: ObjectPlace) -> list[tuple[torch.Tensor, np.ndarray]]:
    out = []
    for demo in demos:
        labels = done_labels(demo, place)
        if labels is not None:
            out.append((policy_states(model, demo), labels))
    return out


def fit_head(states: torch.Tensor, labels: torch.Tensor, seed: int = 0, iterations: int = 400,
             lr: float = 1e-2) -> EndHead:
    """A logistic regression of ``labels [M]`` (1.0: done) on ``states [M, D]``, by full-batch
    Adam on standardized states with a little weight decay."""
    x, y = states.float(), labels.float()
    mu, sd = x.mean(0), x.std(0) + 1e-6
    xn = (x - mu) / sd
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        head = torch.nn.Linear(x.shape[1], 1)
    opt = torch.optim.Adam(head.parameters(), lr=lr, weight_decay=1e-4)
    for _ in range(iterations):
        opt.zero_grad()
        F.binary_cross_entropy_with_logits(head(xn)[:, 0], y).backward()
        opt.step()
    weight = head.weight.detach()[0] / sd
    return EndHead(weight, float(head.bias.detach()[0] - (weight * mu).sum()))


def fit_end(model: ImitationPolicy, demos: Sequence[Demo], place: ObjectPlace, seed: int = 0) -> EndHead:
    """A head fit on the policy's states along ``demos`` (object tests) and their done labels.

    Raises:
        ValueError: no demonstration completes its test.
    """
    data = _dataset(model, demos, place)
    if not data:
        raise ValueError("no object-test demonstration completes its test (the objects oracle's rule); "
                         "the end head needs some")
    return fit_head(torch.cat([s for s, _ in data]), torch.from_numpy(np.concatenate([lab for _, lab in data])), seed)


def score_end(head: EndHead, model: ImitationPolicy, demos: Sequence[Demo], place: ObjectPlace) -> dict[str, Any]:
    """On ``demos``: ROC AUC of done, and where the rule ends each test against its completion."""
    data = _dataset(model, demos, place)
    if not data:
        return {"episodes": 0}
    probs = [head.probability(s) for s, _ in data]
    p, y = np.concatenate(probs), np.concatenate([lab for _, lab in data])
    auc = float("nan")
    if 0 < y.sum() < len(y):
        auc = float(mannwhitneyu(p[y == 1], p[y == 0]).statistic / ((y == 1).sum() * (y == 0).sum()))
    lags, early = [], 0
    for pe, (_, lab) in zip(probs, data):
        end = int(np.argmax(lab)) if lab.any() else len(lab)
        fired = fires(pe)
        lag = (len(pe) if fired is None else fired + 1) - end
        lags.append(lag)
        early += int(lag < 0)
    return {"episodes": len(data), "auc": auc, "lag_median": float(np.median(lags)),
            "lag_quartiles": [float(q) for q in np.percentile(lags, [25, 75])], "early": early / len(data)}


def add_end(weights: Path, demos: Sequence[Demo], seed: int, place: ObjectPlace) -> tuple[dict[str, Any], int]:
    """Fit a head on the training part of ``demos`` (the 70/10/20 split by ``seed``), score it
    on the test part, and write it into ``weights``; returns the score and the test part's
    episodes (the score's ``episodes`` are those of them that complete their test)."""
    start = time.perf_counter()
    model, meta = load_policy(weights)
    train_d, _, test_d = split_demos(demos, seed)
    head = fit_end(model, train_d, place, seed)
    score = {**score_end(head, model, test_d, place), "seconds": round(time.perf_counter() - start, 1)}
    save_policy(model, weights, {**meta, "end": score}, end=head.to_saved())
    return score, len(test_d)
