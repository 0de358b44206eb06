"""Running a plan as a test: play it with the plan agent and judge the outcome."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from evo.run.config import ConfigError
from evo.run.game_facts import GameFacts
from evo.plans.agent import LogLine, PlanAgent, PlanResult
from evo.plans.base import ExpectedBug, Plan
from evo.plans.load import check_plan
from evo.search.play import play
from games.core.base import GameSpec
from games.core.navigation import Navigator
from games.registry import GameFactory
from games.core.record import Rollout, RolloutBatch
from oracles.base import Bug

EVENTS = "info.events"


def run_plan(plan: Plan, factory: GameFactory, *, log: LogLine | None = None,
             navigator: Navigator | None = None) -> PlanResult:
    """Play one episode of the game following ``plan`` (in :attr:`ExpectedBug.copies` copies,
    the first one logged and judged); passed when every node was done, no
    validation failed and the plan's expected bug (:attr:`Plan.bug`, a plan exported from a
    run) did not show. A failed validation or the bug comes back as :attr:`PlanResult.bug`.
    ``navigator`` replaces the game's own (a learned one: :mod:`evo.plans.learned_navigator`).

    Raises:
        ConfigError: the game offers no navigator, the plan names what the game lacks, or
            its expected bug names an oracle or settings that do not exist.
    """
    copies = 1 if plan.bug is None else plan.bug.copies
    try:
        game = factory.make_vector(copies)
    except (TypeError, ValueError) as exc:  # the game refused its kwargs
        raise ConfigError(f"game {factory.label}: {exc}") from None
    try:
        spec = game.game_spec
        navigator = check_plan(plan, game if navigator is None else navigator, spec, factory.label)
        oracle = None if plan.bug is None else bug_oracle(plan.bug, spec, GameFacts.of_game(factory.label, spec, game))
        columns = frozenset({EVENTS}) | (frozenset() if oracle is None else oracle.requires)
        first = None if log is None else (lambda i, t, text: log(i, t, text) if i == 0 else None)
        agent = PlanAgent(plan, navigator, spec, copies, first)
        batch = play(game, [plan.seed] * copies, [0] * copies, agent, max_steps=plan.max_steps, columns=columns).rollouts
    finally:
        game.close()
    episode = batch[0]
    events = episode.info.get("events")
    last = tuple(events[-1] or ()) if events is not None and episode.length else ()
    result = agent.finish(0, last, episode.features[-1], episode.length, ended=bool(episode.terminated))
    result = replace(result, bug=validation_bug(result, episode))
    return result if oracle is None else judge_bug(result, plan.bug, oracle, batch, log)  # type: ignore[arg-type]


def bug_oracle(expected: ExpectedBug, spec: GameSpec, facts: GameFacts | None = None) -> Any:
    """The oracle of an exported bug, with the run's settings and calibrated state; ``facts``:
    the game's (an oracle that reads its scene or ground truth gets them in its context)."""
    from oracles import Context, build_oracles

    try:
        oracle = build_oracles([(expected.oracle, expected.kwargs)], spec, Context(facts=facts))[0]
    except (KeyError, ValueError) as exc:
        raise ConfigError(f"plan bug: {str(exc).splitlines()[0]}") from None
    if expected.state is not None:
        oracle.load_state_dict(expected.state)
    return oracle


def judge_bug(result: PlanResult, expected: ExpectedBug, oracle: Any, batch: RolloutBatch,
              log: LogLine | None) -> PlanResult:
    """The verdict of a bug's plan is the bug's: it fails while ``oracle`` reports the bug in
    the plan's episode and passes when not, even if a fixed build left some node undone (the
    way to the bug may have changed with the fix)."""
    found = [b for b in oracle.check(batch) if b.signature == expected.signature]
    if not found:
        text = f"bug {expected.signature} did not show ({expected.oracle} oracle): fixed"
        if result.failure is not None:
            text += f" (the plan's own steps: {result.failure})"
        result.lines.append((result.steps, text))
        if log is not None:
            log(0, result.steps, text)
        return replace(result, passed=True, failure=None, failed=None, bug=None)
    text = f"bug {expected.signature} remains: {found[0].message}"
    result.lines.append((found[0].step, text))
    if log is not None:
        log(0, found[0].step, text)
    if result.failure is not None and result.bug is not None:
        return result  # a validation failed first: it says more
    return replace(result, passed=False, failure=text, bug=found[0])


def validation_bug(result: PlanResult, episode: Rollout) -> Bug | None:
    """The failed validation as a ``logic`` bug of the ``validation`` oracle, its replay
    handle ending with the action that did not do what it should; None when none failed.

    The signature names the action, its target and the expected change
    (:func:`oracles.action_checks.validation_signature`), so one broken mechanic is one bug
    whichever plan, rule or search ran into it.
    """
    failed = result.failed
    if failed is None or episode.length == 0:
        return None
    step = min(failed.action_step, episode.length - 1)
    return Bug.at_step(
        episode, step, kind="logic", oracle="validation", signature=failed.signature,
        message=failed.text, data={"action": failed.action, "target": failed.target},
    )
