"""Agents: who plays a batch of game copies (:mod:`evo.agents.base` has the contracts)."""

from evo.agents import population, script, uniform  # noqa: F401  (register themselves)
from evo.agents.base import AGENT_KINDS, Agent, AgentKind, AgentSpec, agent_kind, register_kind
from evo.agents.population import EvolvedPopulation, PopulationAgent, PopulationSpec
from evo.agents.returning import ReturningAgent, ReturningSpec
from evo.agents.script import ScriptAgent, ScriptSpec
from evo.agents.uniform import RandomTesting, UniformAgent, UniformSpec

__all__ = [
    "AGENT_KINDS", "Agent", "AgentKind", "AgentSpec", "EvolvedPopulation", "PopulationAgent", "PopulationSpec",
    "RandomTesting", "ReturningAgent", "ReturningSpec", "ScriptAgent", "ScriptSpec", "UniformAgent", "UniformSpec", "agent_kind", "register_kind",
]
