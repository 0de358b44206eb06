"""The parts of the search: who plays and how they change.

- :mod:`evo.search.policy`: actor-critic policies whose genomes are flat vectors.
- :mod:`evo.search.agents`: who plays a batch of copies (the evolved population, uniform random
  play, scripts, returns to archived cells).
- :mod:`evo.search.play`: a population x episodes batch stepped together against a vector game.
- :mod:`evo.search.operators`: selection, crossover, mutation and survival (pymoo, DEAP).
- :mod:`evo.search.finetune`: A2C and PPO between generations.
- :mod:`evo.search.explore`: Go-Explore's cell archive and returns.
- :mod:`evo.search.tasks`, :mod:`evo.search.probe`: the work a worker does, and the first
  episodes of a game that declares no bounds.

Nothing here knows of a run directory or a configuration file: :mod:`evo.run` puts these parts
together, generation by generation.
"""
