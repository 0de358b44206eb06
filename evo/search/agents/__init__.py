"""Agents: who plays a batch of game copies (:mod:`evo.search.agents.base` has the contracts)."""

from evo.search.agents.base import AGENT_KINDS, Agent, AgentKind, AgentSpec, agent_kind, check_kind, register_kind
from evo.search.agents.population import EvolvedPopulation, PopulationAgent, PopulationSpec
from evo.search.agents.returning import ReturningAgent, ReturningSpec
from evo.search.agents.script import ScriptAgent, ScriptSpec
from evo.search.agents.uniform import RandomTesting, UniformAgent, UniformSpec
from games.common.registry import import_modules

import_modules(__name__)  # each module registers its agent kinds

__all__ = [
    "AGENT_KINDS", "Agent", "AgentKind", "AgentSpec", "EvolvedPopulation", "PopulationAgent", "PopulationSpec",
    "RandomTesting", "ReturningAgent", "ReturningSpec", "ScriptAgent", "ScriptSpec", "UniformAgent", "UniformSpec", "agent_kind",
    "check_kind", "register_kind",
]
