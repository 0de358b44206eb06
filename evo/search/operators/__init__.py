"""Search operators chosen by the YAML's ``search.operators``: survival, parent selection,
crossover and mutation, each registered by name (contracts in :mod:`evo.search.operators.base`)."""

from evo.search.operators import crossover, mutation, selection, survival  # noqa: F401  (they register)
from evo.search.operators.algorithm import Operators
from evo.search.operators.base import REGISTRIES, OperatorSettings, Population, Survivors, check_name, to_minimisation
from evo.search.operators.cases import episode_cases
from evo.search.operators.hypervolume import hypervolume

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
