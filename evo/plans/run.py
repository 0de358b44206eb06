"""Running a plan as a test: play it with the plan agent and judge the outcome."""

from __future__ import annotations

from evo.config import ConfigError
from evo.plans.agent import LogLine, PlanAgent, PlanResult
from evo.plans.base import Plan
from evo.plans.load import check_plan
from evo.rollout import play
from games.registry import GameFactory


def run_plan(plan: Plan, factory: GameFactory, *, log: LogLine | None = None) -> PlanResult:
    """Play one episode of the game following ``plan``; passed when every node was done and
    no validation failed.

    Raises:
        ConfigError: the game offers no navigator, or the plan names what the game lacks.
    """
    try:
        game = factory.make_vector(1)
    except (TypeError, ValueError) as exc:  # the game refused its kwargs
        raise ConfigError(f"game {factory.label}: {exc}") from None
    try:
        spec = game.game_spec
        navigator = check_plan(plan, game, spec, factory.label)
        agent = PlanAgent(plan, navigator, spec, 1, log)
        batch = play(game, [0], [0], agent, max_steps=plan.max_steps,
                     columns=frozenset({"info.events"})).rollouts
    finally:
        game.close()
    episode = batch[0]
    last = tuple(episode.info["events"][-1] or ()) if episode.length else ()
    return agent.finish(0, last, episode.features[-1], episode.length, ended=bool(episode.terminated))
