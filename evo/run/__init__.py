"""Running an experiment: from the YAML to the run directory.

- :mod:`evo.run.config` and :mod:`evo.run.game_config`: the experiment, validated (pydantic).
- :mod:`evo.run.built`: what an experiment builds once (the game, its spec, the agents).
- :mod:`evo.run.kinds`: what a run does (``run:``): ``evolve``, Wuji's generation loop
  (:mod:`evo.run.kinds.evolve`), ``single_agent``, PPGTA's one agent; each combines the parts
  below (:mod:`evo.run.kinds.base`).
- The parts of a run: :mod:`evo.run.state` (where it is, and its :mod:`evo.run.budget`),
  :mod:`evo.run.evaluator` (play and score), :mod:`evo.run.recorder` (rows, checkpoints,
  tables and bugs, a generation at a time), :mod:`evo.run.phases` (seconds per phase).
- :mod:`evo.run.rundir`, :mod:`evo.run.checkpoint`, :mod:`evo.run.game_facts`: the run
  directory and what it keeps.
- :mod:`evo.run.parallel`: local processes, Ray or Dask through joblib.
- :mod:`evo.run.progress`, :mod:`evo.run.scalars`: what a user watches while it runs.
- :mod:`evo.run.reaper`: everything a run started ends with it.
- :mod:`evo.run.players`: the agent of a finished run, playing fresh episodes.
"""
