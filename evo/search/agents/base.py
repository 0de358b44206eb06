"""Contracts of the agents: who chooses the actions of a batch of game copies.

Every agent plays through the same :func:`evo.search.play.play`, batched over the copies of a
vector game: the evolved population (one forward pass for all its policies and episodes),
uniform random play, a fixed action script (what a replay plays), and later the plan agent
and the imitation policy. A task carries an agent's *spec* (frozen, picklable data) to a
worker, which builds the agent there with the random numbers it drew for the task.

The search does not know which agent it plays: the YAML's ``search.agent`` names an
:class:`AgentKind` in :data:`AGENT_KINDS`, which makes a population's genomes and the spec
of the agent that plays them.
"""

from __future__ import annotations

from typing import Callable, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from evo.search.policy import PolicySpec
from games.common.registry import Registry


@runtime_checkable
class Agent(Protocol):
    """Chooses the actions of N copies of a game at once.

    Copies are laid out policy-major, as :class:`evo.search.tasks.PlayTask` plays them: with P
    policies of E episodes each, copies ``[p * E, (p + 1) * E)`` belong to policy ``p``.

    An agent that chooses its actions without looking at what it sees (random play, a script,
    a return's prefix) may also have ``planned(t, k) -> [k', N] | None``: the actions
    :meth:`act` will return at steps ``t`` to ``t + k' - 1`` (``k' <= k``), None where it
    does not know them. Play then sends an isolated game's copies those steps at once
    (:meth:`games.adapter.vector_game.GymVectorGame.plan`), with no round trip a step.
    """

    def reset(self, seeds: Sequence[int]) -> None:
        """A new episode starts in every copy, copy i's seeded with ``seeds[i]``.

        Raises:
            ValueError: not one seed per copy the agent was built for.
        """
        ...

    def act(
        self, obs: np.ndarray, features: np.ndarray, infos: Mapping[str, np.ndarray], t: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """The actions of step ``t`` of every copy, and the distribution they came from.

        Args:
            obs: ``[N, obs_dim]`` float32 flat observations.
            features: ``[N, F]`` float64 state features (what a plan agent navigates by).
            infos: The game's named info values of the last step, ``[N]`` each
                (:attr:`games.core.base.VecStep.info`; empty at ``t == 0``): events, say, that
                a plan agent waits for.
            t: Step of the episode, from 0.

        Returns:
            ``(actions [N] int64, probs [N, A] float32)``: ``probs`` is the acting
            distribution (each row sums to 1; one-hot where the action was certain).
        """
        ...


@runtime_checkable
class AgentSpec(Protocol):
    """What a task carries to a worker: frozen, picklable data that builds the agent there."""

    def build(self, episodes: int, gumbel: np.ndarray) -> Agent:
        """The agent for a batch of ``episodes`` episodes per policy.

        Args:
            episodes: Copies each policy plays (copies are policy-major).
            gumbel: ``[N, T, A]`` Gumbel noise the worker drew for the copies
                (:func:`evo.search.play.draw_episodes`, one generator per policy): N copies, the
                game's horizon T and its A actions. Agents that sample draw from it only,
                so that a policy plays the same in any batch, process or machine.
        """
        ...


@runtime_checkable
class AgentKind(Protocol):
    """What a population's agents are (``search.agent``): how the search makes and plays them.

    Attributes:
        evolves: True when the genomes are parameters that variation and fine-tuning
            change; False for agents without parameters (random testing): each generation
            brings fresh agents, and fine-tuning does not apply.

    A kind that needs more of the experiment than the policy architecture (random play's
    ``search.action_repeat``, the imitation population's frames and weights) may also have
    ``fitted(exp, obs_shape) -> AgentKind``, raising ``ValueError`` (one line) where it cannot play
    that game: the run calls it once the game is built (:attr:`evo.run.built.Built.agents`).
    """

    evolves: bool

    def init_genomes(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``[n, D]`` float32 genomes of ``n`` fresh agents (``D = 0`` without parameters)."""
        ...

    def spec(self, genomes: np.ndarray, temperature: float = 1.0) -> AgentSpec:
        """The spec of the agents that play ``genomes [P, D]``, sampling at ``temperature``
        where they sample from a policy (0: greedy)."""
        ...


AgentKindFactory = Callable[[PolicySpec, str], AgentKind]
"""``(policy architecture, device) -> kind``: the device (``cpu``, ``cuda``, ``cuda:N``) is
where a kind's networks run, for the kinds that have any."""

AGENT_KINDS: Registry[AgentKindFactory] = Registry("agent kind", "evo.agents")
"""``search.agent`` name -> factory of the kind, given the experiment's policy architecture;
installed packages add kinds through the ``evo.agents`` entry-point group."""


def register_kind(name: str) -> Callable[[AgentKindFactory], AgentKindFactory]:
    """Decorator: make an agent kind available to YAMLs as ``search.agent: <name>``."""
    return AGENT_KINDS.register(name)


def check_kind(name: str) -> None:
    """Raise ``ValueError`` (one line, listing the registered kinds) unless ``name`` is one:
    what ``search.agent`` may be is what :data:`AGENT_KINDS` holds."""
    AGENT_KINDS.check(name)


def agent_kind(name: str, policy_spec: PolicySpec, device: str = "cpu") -> AgentKind:
    """The registered kind ``name`` for an experiment's policy architecture and device.

    Raises:
        ValueError: no kind has that name (:func:`check_kind`).
    """
    check_kind(name)
    return AGENT_KINDS[name](policy_spec, device)


def check_copies(seeds: Sequence[int], copies: int, agent: str) -> None:
    """ValueError unless there is one episode seed per copy the agent was built for."""
    if len(seeds) != copies:
        raise ValueError(f"{agent}: {len(seeds)} episode seeds for {copies} copies")
