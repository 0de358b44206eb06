"""Search operators chosen by the YAML's ``search.operators``: survival, parent selection,
crossover and mutation, each registered by name (contracts in :mod:`evo.operators.base`)."""

from evo.operators import crossover, mutation, selection, survival  # noqa: F401  (they register)
from evo.operators.algorithm import Operators
from evo.operators.base import REGISTRIES, OperatorSettings, Population, Survivors, check_name, to_minimisation
from evo.operators.cases import episode_cases
from evo.operators.hypervolume import hypervolume

__all__ = [
    "REGISTRIES",
    "OperatorSettings",
    "Operators",
    "Population",
    "Survivors",
    "check_name",
    "episode_cases",
    "hypervolume",
    "to_minimisation",
]
