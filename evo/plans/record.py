"""Plans from recordings: a played episode (a bug's trace, or a person's play) as nodes.

AGT records a play session by sampling the player's position periodically and keeping every
action. Here an episode is replayed from its seed and cut into nodes that the plan agent
(:mod:`evo.plans.agent`) follows back to the same states:

- every ``every`` steps the place (the first two state features) becomes a node to walk to;
- a step that does not move the player (an interaction, an attack, a turn against a wall, a
  bump, a move while frozen) is a node that acts at its place, aimed at the actor the game
  said it was aimed at (``info["aim"]``, where the game has it);
- a stretch the navigator would walk differently (its shortest way is not the recorded
  one) becomes ``movement: straight`` when a straight line is what was played, or is cut in
  two until it is one or the other; a single step that is neither (a jump) acts in place.

Each stretch is checked step by step against what the agent will choose from the recorded
state, so following the plan replays the episode's moves exactly on the same build.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from evo.search.agents.script import ScriptAgent
from evo.run.config import ConfigError
from evo.plans.base import ExpectedBug, GameRef, Node, Plan
from evo.search.play import play
from games.core.navigation import Navigator
from games.registry import GameFactory
from games.core.record import Rollout
from oracles.action_checks import Validation

RECORD_COLUMNS = frozenset({"info.events", "info.aim"})


def _place(features: np.ndarray) -> tuple[int, int]:
    return int(round(float(features[0]))), int(round(float(features[1])))


class _Recording:
    """One replayed episode and the navigator that will follow its plan."""

    def __init__(self, nav: Navigator, episode: Rollout) -> None:
        self.nav, self.ep = nav, episode
        self.actions = [int(a) for a in episode.actions]
        self.places = [_place(f) for f in episode.features]
        n = episode.length
        aims = episode.info.get("aim")
        self.aims = [str(aims[k]) if aims is not None and aims[k] is not None else "" for k in range(n)]
        events = episode.info.get("events")
        gone: set[str] = set()
        self.gone: list[frozenset[str]] = []
        for k in range(n):  # what the agent knows is gone before step k
            self.gone.append(frozenset(gone))
            for event in (events[k] or ()) if events is not None else ():
                kind, _, rest = event.partition(":")
                if kind in nav.removal_events and rest:
                    gone.add(rest.split(":")[0])

    def acts_in_place(self, k: int) -> bool:
        return self.places[k + 1] == self.places[k] or ":" in self.aims[k]

    def action_node(self, k: int) -> Node:
        target = self.aims[k].partition(":")[2] or None
        return Node(location=self.places[k], target=target, action=self.nav.action_names[self.actions[k]])

    def _choice(self, k: int, place: tuple[int, int], movement: str) -> int | None:
        if self.places[k] == place:
            return None  # the agent would stop here
        f = self.ep.features[k]
        if movement == "straight":
            return int(self.nav.straight(f, place))
        found = self.nav.route(f, place, gone=self.gone[k])
        return found.actions[0] if found is not None and found.actions else None

    def stretch(self, start: int, stop: int) -> list[Node]:
        """Nodes that replay steps ``start..stop-1`` (each moves the player)."""
        place = self.places[stop]
        for movement in ("walk", "straight"):
            if all(self._choice(k, place, movement) == self.actions[k] for k in range(start, stop)):
                return [Node(location=place, movement=movement)]  # type: ignore[arg-type]
        if stop - start == 1:
            return [self.action_node(start)]
        mid = (start + stop) // 2
        return self.stretch(start, mid) + self.stretch(mid, stop)

    def nodes(self, every: int) -> list[Node]:
        out: list[Node] = []
        start = 0
        for k in range(self.ep.length):
            if self.acts_in_place(k):
                out += self.stretch(start, k) if k > start else []
                out.append(self.action_node(k))
                start = k + 1
            elif k + 1 - start >= every:
                out += self.stretch(start, k + 1)
                start = k + 1
        if start < self.ep.length:
            out += self.stretch(start, self.ep.length)
        return out


def record_plan(factory: GameFactory, seed: int, actions: Sequence[int], *, every: int = 10,
                name: str = "", validations: Sequence[Validation] = (),
                bug: ExpectedBug | None = None) -> tuple[Plan, Rollout]:
    """The plan that replays ``actions`` played from episode ``seed`` (a bug's trace, or a
    person's recorded play), with the recorded episode.

    Args:
        factory: The game (it must offer a navigator).
        seed: The episode's seed.
        actions: The actions, in order.
        every: Steps between two sampled places.
        name: The plan's name.
        validations: Validations the plan checks (an exported validation bug's).
        bug: The bug the plan reproduces (an exported oracle bug).

    Raises:
        ConfigError: the game offers no navigator, or ``every`` is not positive.
    """
    if every < 1:
        raise ConfigError(f"--every {every}: expected a positive number of steps")
    if not actions:
        raise ConfigError("a recording needs at least one action")
    game = factory.make_vector(1)
    try:
        if not isinstance(game, Navigator):
            raise ConfigError(f"game {factory.label!r} offers no navigator: a recording cannot become a plan")
        spec = game.game_spec
        agent = ScriptAgent([list(actions)], spec.n_actions)
        episode = play(game, [int(seed)], [0], agent, max_steps=len(actions), columns=RECORD_COLUMNS).rollouts[0]
        nodes = _Recording(game, episode).nodes(every)
    finally:
        game.close()
    ref = GameRef(name=factory.label, kwargs=dict(factory.kwargs),
                  wrappers=[{"name": name, "kwargs": dict(kwargs)} for name, kwargs in factory.wrappers])
    plan = Plan(name=name, game=ref, nodes=nodes, validations=list(validations), bug=bug,
                max_steps=max(episode.length, 1), seed=int(seed))
    return plan, episode


def plan_yaml(plan: Plan) -> str:
    """The plan as YAML, defaults left out, a node or validation a line (as a person writes)."""
    import yaml

    class _Dumper(yaml.SafeDumper):
        pass

    def flow(dumper: yaml.SafeDumper, data: dict) -> yaml.Node:
        return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=True)

    class _Line(dict):  # a mapping written on one line
        pass

    _Dumper.add_representer(_Line, flow)
    data: dict[str, Any] = plan.model_dump(mode="json", exclude_defaults=True)
    for key in ("nodes", "validations"):
        if key in data:
            data[key] = [_Line(item) for item in data[key]]
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, width=140)


__all__ = ["plan_yaml", "record_plan"]
