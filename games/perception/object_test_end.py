"""When an object test is done: a logistic head on the object-test policy's state.

    evo vision train test-end --demos demos/objects --weights games/perception/weights/object_test.pt
    evo vision eval test-end --demos demos/other --weights games/perception/weights/object_test.pt

A tester (:mod:`evo.search.agents.tester`) hands a copy to the object-test policy for a test.
A fixed length wastes steps: the demonstrated circle closes in about 40 steps and a test that
runs 100 keeps circling an object already tested while the explorer waits. Measured on park
levels 101 and 102 (never the evaluation level), a test that stops the step the objects oracle
counts it done tests 7% more objects in 18 episodes than the fixed 100 steps; nothing the
player's own actions tell (a full turn) does as well. The policy's own state does: its local
and global GRU states (``h_c``, :meth:`games.perception.imitation.ImitationPolicy.states`) know how
far round the object it has come.

The head is a logistic regression on ``h_c``, fit on the object-test demonstrations: a step is
labelled done once the demonstration's test has completed by the objects oracle's rule
(:func:`test_stretch`). A test then ends when the head says done
with probability above :data:`END_P` on :data:`END_RUN` steps in a row, once it is
:data:`END_MIN` steps old. It is fit on the policy's training episodes (the same 70/10/20
split by the same seed) and scored on its test episodes: ROC AUC, and how many steps after the
true completion the rule ends the test (negative: before it, which costs the test).

The head is saved in the policy's weights file (``end``), so the shipped object-test policy
carries its own end.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch
from rich.console import Console
from scipy.stats import mannwhitneyu
from torch.nn import functional as F

from games.doom.park.layout import park_layout
from games.doom.park.navigation import ooi_names
from games.perception.demos import Demo, load_demos, split_demos
from games.perception.execution_quality import demonstrated_window
from games.perception.imitation import OBJECT_TEST_WEIGHTS, ImitationPolicy, load_policy, save_policy

END_P = 0.8
"""Probability of done above which a step counts towards the end."""
END_RUN = 3
"""Steps in a row above :data:`END_P` that end a test."""
END_MIN = 10
"""Steps a test plays at least (no circle closes sooner)."""


@dataclass(frozen=True)
class EndHead:
    """``P(done) = sigmoid(h_c . weight + bias)``, the input's normalization folded in."""

    weight: torch.Tensor
    bias: float

    def probability(self, states: torch.Tensor) -> np.ndarray:
        """``[M, D]`` policy states -> ``[M]`` float64 probabilities that the test is done."""
        with torch.inference_mode():
            return torch.sigmoid(states.double() @ self.weight.double() + self.bias).numpy()

    def to_saved(self) -> dict[str, torch.Tensor]:
        return {"weight": self.weight.detach().clone(), "bias": torch.tensor(float(self.bias))}


def load_end(path: Path | str | None = None) -> EndHead | None:
    """The end head saved with the object-test policy at ``path`` (None: the policy has none)."""
    saved = torch.load(Path(path or OBJECT_TEST_WEIGHTS), map_location="cpu", weights_only=True)
    end = saved.get("end")
    return None if end is None else EndHead(end["weight"], float(end["bias"]))


def fires(probs: np.ndarray) -> int | None:
    """The step at which a test whose steps read ``probs [T]`` ends (None: never): as
    :class:`evo.search.agents.tester.TesterAgent` ends it, step by step."""
    run = 0
    for t, p in enumerate(probs):
        run = run + 1 if p > END_P else 0
        if run >= END_RUN and t + 1 >= END_MIN:
            return t
    return None


def policy_states(model: ImitationPolicy, demo: Demo) -> torch.Tensor:
    """``[T, D]`` the policy's state ``h_c`` at each step of ``demo``, on its OD-masked frames,
    as it plays them step by step from a fresh memory."""
    model.eval()
    with torch.inference_mode():
        frames = torch.from_numpy(np.ascontiguousarray(demo.masked[: demo.steps]))
        return model.states(frames[None])[0]


def test_stretch(demo: Demo) -> slice:
    """The steps of an object-test demonstration that execute its test by the objects oracle's
    rule (:func:`games.perception.execution_quality.demonstrated_window`), as an executed test is
    scored; the whole trajectory for a path demonstration, or a test never completed."""
    target, level = demo.meta.get("target"), demo.meta.get("level_seed")
    if not target or level is None:
        return slice(None)
    layout = park_layout(str(demo.meta.get("preset", "small")), int(level))
    names = ooi_names(layout)
    if target not in names:
        return slice(None)
    ooi = layout.oois[names.index(target)]
    window = demonstrated_window(demo.features, (ooi.x, ooi.y))
    return slice(None) if window is None else slice(window[0], window[1] + 1)


def done_labels(demo: Demo) -> np.ndarray | None:
    """``[T]`` 1.0 from the step after the one that completes the demonstration's test; None
    when it never completes one."""
    stretch = test_stretch(demo)
    if stretch.stop is None:
        return None
    return (np.arange(demo.steps) >= stretch.stop).astype(np.float32)


def _dataset(model: ImitationPolicy, demos: Sequence[Demo]) -> list[tuple[torch.Tensor, np.ndarray]]:
    out = []
    for demo in demos:
        labels = done_labels(demo)
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


def fit_end(model: ImitationPolicy, demos: Sequence[Demo], seed: int = 0) -> EndHead:
    """A head fit on the policy's states along ``demos`` (object tests) and their done labels.

    Raises:
        ValueError: no demonstration completes its test.
    """
    data = _dataset(model, demos)
    if not data:
        raise ValueError("no object-test demonstration completes its test (the objects oracle's rule); "
                         "the end head needs some")
    return fit_head(torch.cat([s for s, _ in data]), torch.from_numpy(np.concatenate([lab for _, lab in data])), seed)


def score_end(head: EndHead, model: ImitationPolicy, demos: Sequence[Demo]) -> dict[str, Any]:
    """On ``demos``: ROC AUC of done, and where the rule ends each test against its completion."""
    data = _dataset(model, demos)
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


def add_end(weights: Path, demos: Sequence[Demo], seed: int, console: Console) -> dict[str, Any]:
    """Fit a head on the training part of ``demos`` (the 70/10/20 split by ``seed``), score it
    on the test part, and write it into ``weights``; returns the score."""
    start = time.perf_counter()
    model, meta = load_policy(weights)
    train_d, _, test_d = split_demos(demos, seed)
    head = fit_end(model, train_d, seed)
    score = {**score_end(head, model, test_d), "seconds": round(time.perf_counter() - start, 1)}
    if score["episodes"]:
        console.print(f"test end on {score['episodes']} test episodes: AUC {score['auc']:.3f}; a test ends "
                      f"{score['lag_median']:+.0f} steps after it completed (median; quartiles "
                      f"{score['lag_quartiles'][0]:+.0f}, {score['lag_quartiles'][1]:+.0f}), before it in "
                      f"{score['early']:.0%}")
    else:
        console.print(f"test end fit; not scored: none of the {len(test_d)} test episodes completes its test")
    save_policy(model, weights, {**meta, "end": score}, end=head.to_saved())
    return score


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``evo vision train test-end``."""
    parser.add_argument("--demos", type=Path, required=True, help="folder of object-test demonstrations")
    parser.add_argument("--weights", type=Path, default=OBJECT_TEST_WEIGHTS,
                        help="the object-test policy; its file gets the head")
    parser.add_argument("--seed", type=int, default=None, help="the split's seed (default: the policy's)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")


def train_command(args: argparse.Namespace, console: Console) -> int:
    """Fit the end head of an object-test policy and write it into the policy's file."""
    torch.set_num_threads(max(1, int(args.threads)))
    _, meta = load_policy(args.weights)
    demos = load_demos(args.demos, "object")
    seed = int(meta.get("seed", 0) if args.seed is None else args.seed)
    add_end(args.weights, demos, seed, console)
    console.print(f"wrote the test end into {args.weights}")
    return 0


def add_eval_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``evo vision eval test-end``."""
    parser.add_argument("--weights", type=Path, default=OBJECT_TEST_WEIGHTS, help="the object-test policy")
    parser.add_argument("--demos", type=Path, required=True, help="object-test demonstrations (other levels)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")


def eval_command(args: argparse.Namespace, console: Console) -> int:
    """Score the end head on object-test demonstrations."""
    torch.set_num_threads(max(1, int(args.threads)))
    model, _ = load_policy(args.weights)
    head = load_end(args.weights)
    if head is None:
        raise ValueError(f"{args.weights} has no test end (add one: evo vision train test-end --weights "
                         f"{args.weights} --demos DIR)")
    score = score_end(head, model, load_demos(args.demos, "object"))
    if not score["episodes"]:
        raise ValueError(f"{args.demos} holds no object-test demonstration that completes its test")
    console.print(f"{score['episodes']} object tests: AUC {score['auc']:.3f}; a test ends {score['lag_median']:+.0f} "
                  f"steps after it completed (median), before it in {score['early']:.0%}")
    return 0
