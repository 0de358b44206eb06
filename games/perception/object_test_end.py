"""When an object test is done: a logistic head on the object-test policy's state.

A tester (:mod:`evo.search.agents.tester`) hands a copy to the object-test policy for a test.
A fixed length wastes steps: the demonstrated circle closes in about 40 steps and a test that
runs 100 keeps circling an object already tested while the explorer waits. Measured on park
levels 101 and 102 (never the evaluation level), a test that stops the step the objects oracle
counts it done tests 7% more objects in 18 episodes than the fixed 100 steps; nothing the
player's own actions tell (a full turn) does as well. The policy's own state does: its local
and global GRU states (``h_c``, :meth:`games.perception.imitation.ImitationPolicy.states`) know
how far round the object it has come.

The head is a logistic regression on ``h_c`` (fit on the object-test demonstrations,
:mod:`games.perception.training.object_test_end`). A test ends when the head says done with
probability above :data:`END_P` on :data:`END_RUN` steps in a row, once it is :data:`END_MIN`
steps old (:func:`fires`). The head is saved in the policy's weights file (``end``), so the
shipped object-test policy carries its own end.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from games.perception.imitation import OBJECT_TEST_WEIGHTS

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
