"""Running a plan as a test: play it with the plan agent and judge the outcome."""

from __future__ import annotations

from dataclasses import replace

from evo.config import ConfigError
from evo.plans.agent import LogLine, PlanAgent, PlanResult
from evo.plans.base import Plan
from evo.plans.load import check_plan
from evo.rollout import play
from games.registry import GameFactory
from games.rollout import Rollout
from oracles.base import Bug


def run_plan(plan: Plan, factory: GameFactory, *, log: LogLine | None = None) -> PlanResult:
    """Play one episode of the game following ``plan``; passed when every node was done and
    no validation failed. A failed validation comes back as :attr:`PlanResult.bug` too.

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
    result = agent.finish(0, last, episode.features[-1], episode.length, ended=bool(episode.terminated))
    return replace(result, bug=validation_bug(result, episode))


def validation_bug(result: PlanResult, episode: Rollout) -> Bug | None:
    """The failed validation as a ``logic`` bug of the ``validation`` oracle, its replay
    handle ending with the action that did not do what it should; None when none failed.

    The signature names the action, its target and the expected change, so one broken
    mechanic is one bug whichever plan or rule ran into it.
    """
    failed = result.failed
    if failed is None or episode.length == 0:
        return None
    step = min(failed.action_step, episode.length - 1)
    return Bug.at_step(
        episode, step, kind="logic", oracle="validation", signature=failed.signature,
        message=failed.text, data={"action": failed.action, "target": failed.target},
    )
