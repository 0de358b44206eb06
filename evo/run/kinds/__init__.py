"""Run kinds: what ``evo run`` does with an experiment, by its ``run:`` key.

A run kind combines the parts of a run (:mod:`evo.run.kinds.base`: the state, the evaluator,
the recorder and the budget) into its own loop: ``evolve`` is Wuji's generation loop
(:mod:`evo.run.kinds.evolve`), ``single_agent`` trains PPGTA's one agent
(:mod:`evo.run.kinds.single_agent`). A new kind is one file with one ``@RUN_KINDS.register``,
or a package's entry point in the ``evo.runs`` group (docs/guides/add-a-run-kind.md).
:func:`evo.run.kinds.base.run_for` starts the run of an experiment by its kind.

This module only names the kinds, so that an experiment's ``run:`` is checked without
importing torch; a kind's module is imported when a run of it starts.
"""

from __future__ import annotations

from games.common.registry import Registry

RUN_KINDS: Registry[type] = Registry("run kind", group="evo.runs")
"""Run kinds (subclasses of :class:`evo.run.kinds.base.Run`) by name; an installed package adds
its own through the ``evo.runs`` entry points."""
RUN_KINDS.add_lazy("evolve", "evo.run.kinds.evolve:Evolve")
RUN_KINDS.add_lazy("single_agent", "evo.run.kinds.single_agent:SingleAgent")

__all__ = ["RUN_KINDS"]
