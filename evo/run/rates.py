"""How often a bug shows again: each new bug's seed and actions played again as the run finds it.

A game that replays (the same seed and actions give the same states) shows a bug in every
replay; one that does not (sticky inputs, physics on threads, a generator no seed reaches)
shows it in some, and a tester needs to know in how many before filing it. So each bug the
oracles report is played again in :attr:`evo.run.config.Experiment.bug_replays` copies of the
run's game from its episode seed (:class:`evo.run.replays.Replays`), each copy judged alone by
a copy of the oracle that reported it, with the state the oracle has now, as ``evo replay``
judges them (:mod:`evo.bugs.reproduce`); ``bugs.jsonl`` keeps ``reproduced: [showed, played]``.

An oracle that judges across visits (the performance oracle) proves nothing from one replay:
its report's rate is the confirmation it played itself (slow again in so many of its
replays). A fault of the game's process told while a generation plays (a hang, memory) is
not replayed here: replaying it costs the fault's own time again, and ``evo replay`` measures it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evo.run.built import Built
from evo.run.replays import Replays
from games.core.component import Context
from oracles import Oracle, build_oracles
from oracles.base import Bug, same_fault


class Rates:
    """A new bug's ``(showed, played)`` from ``copies`` replays; None where not replayed.

    Args:
        built: The run's game and oracles.
        replays: Plays scripts in copies of the run's game.
        copies: Replays per bug (0: none).
        run_dir: The run directory (the oracles' context).
    """

    def __init__(self, built: Built, replays: Replays, copies: int, run_dir: Path) -> None:
        self.built, self.replays, self.copies, self.run_dir = built, replays, int(copies), run_dir
        self._live = {o.name: o for o in built.oracles}
        self._judges: dict[str, Oracle] = {}

    def __call__(self, bug: Bug) -> tuple[int, int] | None:
        oracle = self._live.get(bug.oracle)
        if not self.copies or oracle is None:
            return None
        if oracle.statistical:  # its own confirmation, where it played one
            data = bug.data
            return (int(data["replays_slow"]), int(data["replays"])) if "replays" in data else None
        judge = self._judge(oracle)
        judge.load_state_dict(oracle.state_dict())
        played = self.replays(bug.episode_seed, bug.actions, self.copies)
        showed = 0
        for k in range(len(played)):
            judge.forget_visits()  # each copy judged on its own evidence
            showed += any(same_fault(b.signature, bug.signature) for b in judge.check(played[k : k + 1]))
        return showed, len(played)

    def _judge(self, oracle: Oracle) -> Oracle:
        """A copy of ``oracle`` built as the run built it, made once."""
        if oracle.name not in self._judges:
            exp = self.built.exp
            kwargs: dict[str, Any] = next(o.kwargs for o in exp.oracles if o.name == oracle.name)
            context = Context(exp.seed, exp.device, self.run_dir, self.built.facts)
            self._judges[oracle.name] = build_oracles([(oracle.name, kwargs)], self.built.spec, context)[0]
        return self._judges[oracle.name]

