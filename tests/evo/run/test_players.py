"""Which of a finished run's policies a study of trained players plays."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from evo.run.players import EvaluationError, pick
from games.core.component import Component


class Scored(Component):
    """An objective of a finished run (pick reads its name, sense and hooks)."""

    def __init__(self, name: str, sense: str = "max", ranks_players: bool = False) -> None:
        self.name, self.sense, self.ranks_players = name, sense, ranks_players


# Policy 0 is best on the first objective, policy 1 on the second.
F = np.array([[9.0, 1.0], [1.0, 9.0], [5.0, 5.0]])


def test_best_is_best_on_the_objective_that_declares_it_ranks_players() -> None:
    built = SimpleNamespace(objectives=[Scored("speed"), Scored("slowness", ranks_players=True)])
    assert pick(built, F, "best", None).tolist() == [1]  # type: ignore[arg-type]
    assert pick(built, F, "best", "speed").tolist() == [0]  # type: ignore[arg-type]


def test_without_such_an_objective_best_is_best_on_the_first() -> None:
    built = SimpleNamespace(objectives=[Scored("speed"), Scored("slowness")])
    assert pick(built, F, "best", None).tolist() == [0]  # type: ignore[arg-type]
    with pytest.raises(EvaluationError, match="--objective 'fun' is not an objective of this run"):
        pick(built, F, "best", "fun")  # type: ignore[arg-type]
