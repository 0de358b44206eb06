"""The explicit plan agent (AGT's EPA) on the engine's Agent protocol.

Each copy of the game follows the plan on its own: it navigates to the current node's
target with the game's navigator and performs the node's action on arrival; whenever rules
hold, the highest-priority one takes over (go to its target, act), and when none holds the
nodes resume where they were left. Before every action the validations registered for it
take their snapshot; after it, their checks run as events come (:mod:`oracles.action_checks`).
What happens is logged line by line, per copy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np

from evo.search.agents.base import check_copies
from evo.plans.base import Condition, Node, Plan, Rule
from oracles.action_checks import Validator, Verdict, event_kind
from games.core.base import GameSpec
from games.core.navigation import Manoeuvre, Navigator, Route
from oracles.base import Bug

LogLine = Callable[[int, int, str], None]
"""``(copy, step, text)``: called with each line as it happens."""


@dataclass
class PlanResult:
    """How one copy's test went.

    Attributes:
        passed: Every node was done and no validation failed.
        failure: What failed first, in words.
        lines: ``(step, text)`` of everything that happened.
        steps: Steps played.
        nodes_done: Nodes done, in order.
        failed: The failed validation, when one failed first (else None).
        bug: That failure as a ``logic`` bug of the ``validation`` oracle, with its replay
            handle (:func:`evo.plans.run.validation_bug`), when the plan was run by
            :func:`evo.plans.run.run_plan`.
    """

    passed: bool
    failure: str | None
    lines: list[tuple[int, str]]
    steps: int
    nodes_done: int
    failed: Verdict | None = None
    bug: Bug | None = None


HERE = Route((), None)
"""The route of a rule that acts where the player stands (feature preconditions only)."""


@dataclass
class _Follower:
    validator: Validator
    node: int = 0
    waited: int = -1  # -1: the current node's target is not reached yet
    announced: int = -1  # the last node whose start was logged
    gone: set[str] = field(default_factory=set)
    removed: list[str] = field(default_factory=list)  # actors the last step removed
    rule: tuple[int, str | None] | None = None
    manoeuvre: Manoeuvre | None = None  # the current node's, under way (circling its actor)
    rule_manoeuvre: Manoeuvre | None = None  # a rule's, under way ("circle every barrel you pass")
    uses: dict[tuple[int, str | None], int] = field(default_factory=dict)
    lines: list[tuple[int, str]] = field(default_factory=list)
    failure: str | None = None
    failed: Verdict | None = None
    finished: bool = False
    steps: int = 0


class PlanAgent:
    """Follows ``plan`` in every copy of a game that offers a :class:`Navigator`.

    Args:
        plan: The plan (names already checked against the game: :func:`evo.plans.load.check_plan`).
        navigator: The game's navigator.
        spec: The game's spec (state feature names, number of actions).
        copies: Copies of the game played at once.
        log: Called with each log line as it happens (the command line prints them).
    """

    def __init__(self, plan: Plan, navigator: Navigator, spec: GameSpec, copies: int,
                 log: LogLine | None = None) -> None:
        self.plan, self.nav, self.spec, self.copies = plan, navigator, spec, copies
        self.log = log
        self.actions = {name: i for i, name in enumerate(navigator.action_names)}
        self.idle = getattr(navigator, "idle_action", self.actions.get("wait", 0))
        self.removals = tuple(navigator.removal_events)
        self.manoeuvres = tuple(getattr(navigator, "manoeuvres", ()))
        self.features = {name: j for j, name in enumerate(spec.feature_names)}
        self.eye = np.eye(spec.n_actions, dtype=np.float32)
        order = sorted(range(len(plan.rules)), key=lambda k: -plan.rules[k].priority)
        self.rule_order = order
        self.followers: list[_Follower] = []
        self.reset([0] * copies)

    def reset(self, seeds: Sequence[int]) -> None:
        check_copies(seeds, self.copies, "plan agent")
        self.followers = [_Follower(Validator(self.plan.validations, self.spec.feature_names, self.nav.categories))
                          for _ in seeds]

    def act(self, obs: np.ndarray, features: np.ndarray, infos: Mapping[str, np.ndarray],
            t: int) -> tuple[np.ndarray, np.ndarray]:
        """Every copy's next action: a rule's, the current node's, or waiting once done."""
        events = infos.get("events")
        actions = np.full(self.copies, self.idle, dtype=np.int64)
        for i, follower in enumerate(self.followers):
            happened = tuple(events[i] or ()) if events is not None else ()
            actions[i] = self._choose(i, follower, np.asarray(features[i]), happened, t)
        return actions, self.eye[actions]

    # -- one copy ------------------------------------------------------------------------

    def _say(self, i: int, s: _Follower, t: int, text: str) -> None:
        s.lines.append((t, text))
        if self.log is not None:
            self.log(i, t, text)

    def _judge(self, i: int, s: _Follower, verdicts: list[Verdict]) -> None:
        for v in verdicts:
            self._say(i, s, v.step, v.text)
            if not v.passed and s.failure is None:
                s.failure, s.failed = v.text, v

    def _choose(self, i: int, s: _Follower, f: np.ndarray, events: tuple[str, ...], t: int) -> int:
        s.steps = t
        s.removed = [rest.split(":")[0] for kind, _, rest in (e.partition(":") for e in events)
                     if kind in self.removals and rest]
        s.gone.update(s.removed)
        if t > 0:
            self._judge(i, s, s.validator.after(events, f, t))
        if s.failure is not None or (s.finished and self.plan.nodes):  # rules alone play to the end
            return self.idle
        if s.rule_manoeuvre is not None:
            move = self._rule_manoeuvre(i, s, f, t)
            if move is not None:
                return move
        gone = frozenset(s.gone)
        chosen = self._rule(f, s, gone)
        if chosen is not None:
            k, route = chosen
            rule = self.plan.rules[k]
            key = (k, route.actor)
            if s.rule != key:
                self._say(i, s, t, f"rule '{rule.label()}' (priority {rule.priority}) -> {route.actor or 'here'}")
                s.rule = key
            if route.actions:
                return route.actions[0]
            s.uses[key] = s.uses.get(key, 0) + 1
            if rule.action in self.manoeuvres and route.actor is not None:  # once round each actor it meets
                s.uses[key] = rule.repeat
                s.rule_manoeuvre = self.nav.manoeuvre(rule.action, route.actor)  # type: ignore[attr-defined]
                self._say(i, s, t, f"{rule.action} {route.actor}")
                move = self._rule_manoeuvre(i, s, f, t)
                if move is not None:
                    return move
            elif rule.action is not None:
                return self._act(i, s, rule.action, route.actor, f, t)
        elif s.rule is not None:
            s.rule = None
            if s.node < len(self.plan.nodes):
                self._say(i, s, t, f"resume node {s.node + 1}: {self.plan.nodes[s.node].describe()}")
        return self._follow_nodes(i, s, f, gone, t)

    def _rule_manoeuvre(self, i: int, s: _Follower, f: np.ndarray, t: int) -> int | None:
        """The next move of a rule's manoeuvre under way, or None once it is done; a manoeuvre a
        rule gives up on is logged and the plan goes on (rules act where they can)."""
        move = s.rule_manoeuvre.step(f)  # type: ignore[union-attr]
        if move is not None:
            return int(move)
        if s.rule_manoeuvre.failure:  # type: ignore[union-attr]
            self._say(i, s, t, f"rule gave up: {s.rule_manoeuvre.failure}")  # type: ignore[union-attr]
        s.rule_manoeuvre = None
        return None

    def _rule(self, f: np.ndarray, s: _Follower, gone: frozenset[str]) -> tuple[int, Route] | None:
        """The highest-priority rule whose preconditions hold, with its route."""
        for k in self.rule_order:
            rule = self.plan.rules[k]
            route = self._holds(k, rule, f, s, gone)
            if route is not None:
                return k, route
        return None

    def _holds(self, k: int, rule: Rule, f: np.ndarray, s: _Follower, gone: frozenset[str]) -> Route | None:
        """The route of rule ``k`` when all its preconditions hold; None otherwise.

        Targets the rule has acted on ``repeat`` times are left out, so a rule never holds
        forever on one actor.
        """
        spent = frozenset(actor for (r, actor), n in s.uses.items() if r == k and n >= rule.repeat and actor)
        found: Route | None = None
        for cond in rule.when:
            if cond.feature is not None:
                if not self._feature_holds(cond, f):
                    return None
                continue
            near = self.nav.nearest(f, [cond.near], cond.within, gone | spent)  # type: ignore[list-item]
            if near is None:
                return None
            found = found or near
        if rule.target is not None:
            return self.nav.route(f, rule.target, action=rule.action, tolerance=rule.tolerance, gone=gone | spent)
        if found is None:
            return None if s.uses.get((k, None), 0) >= rule.repeat else HERE
        if found.actor is not None and (rule.action is not None or rule.tolerance is not None):
            return self.nav.route(f, found.actor, action=rule.action, tolerance=rule.tolerance, gone=gone | spent)
        return found

    def _feature_holds(self, cond: Condition, f: np.ndarray) -> bool:
        value = float(f[self.features[cond.feature]])  # type: ignore[index]
        return not ((cond.below is not None and not value < cond.below) or (
            cond.above is not None and not value > cond.above))

    def _ready(self, node: Node, f: np.ndarray, gone: frozenset[str]) -> bool:
        """Whether a node's preconditions hold (an actor near, a feature past its bound)."""
        return all(self._feature_holds(c, f) if c.feature is not None else
                   self.nav.nearest(f, [c.near], c.within, gone) is not None for c in node.when)  # type: ignore[list-item]

    def _act(self, i: int, s: _Follower, action: str, target: str | None, f: np.ndarray, t: int) -> int:
        self._say(i, s, t, f"{action} {target}" if target else action)
        for line in s.validator.before(action, target, f, t):
            self._say(i, s, t, line)
        return self.actions[action]

    def _follow_nodes(self, i: int, s: _Follower, f: np.ndarray, gone: frozenset[str], t: int) -> int:
        while s.node < len(self.plan.nodes):
            node = self.plan.nodes[s.node]
            if s.manoeuvre is not None:  # "circle it": the game's manoeuvre plays until done
                move = s.manoeuvre.step(f)
                if move is not None:
                    return move
                failure, s.manoeuvre = s.manoeuvre.failure, None
                if failure:
                    s.failure = f"node {s.node + 1} ({node.describe()}): {failure}"
                    self._say(i, s, t, f"FAILED {s.failure}")
                    return self.idle
            if s.waited >= 0:  # arrived (and acted): wait, then move on
                if s.waited < node.wait:
                    s.waited += 1
                    return self.idle
                self._say(i, s, t, f"node {s.node + 1} done")
                s.node, s.waited = s.node + 1, -1
                continue
            if s.announced < s.node:
                s.announced = s.node
                self._say(i, s, t, f"node {s.node + 1}: {node.describe()}")
            if node.when and not self._ready(node, f, gone):
                return self.idle  # "once the switch is on": wait for it (rules still act)
            target = tuple(node.location) if node.location is not None else node.target
            taken = next((a for a in s.removed if self._of(a, node.target)), None) if node.action is None else None
            if taken is not None:  # walking onto a coin collects it: arrived, though it is gone now
                self._say(i, s, t, f"node {s.node + 1} reached: {node.describe()} ({taken}, gone)")
                s.waited, s.removed = 0, []
                continue
            if node.movement == "straight":  # no path finding: a recorded path, walls and all
                if not self._at(f, node):
                    return self.nav.straight(f, node.location)  # type: ignore[arg-type]
                route: Route | None = HERE
            else:
                route = self.nav.route(f, target, action=node.action, tolerance=node.tolerance, gone=gone)  # type: ignore[arg-type]
                leap = getattr(self.nav, "leap", None)
                if route is None and leap is not None:  # "use the shrine" past the pit, the jump left out
                    route = leap(f, target, action=node.action, tolerance=node.tolerance, gone=gone)
            if route is None:
                if s.validator.pending:  # the last action's checks come first: they say why
                    return self.idle
                why = getattr(self.nav, "why_no_way", None)
                because = why(f, target, action=node.action, tolerance=node.tolerance, gone=gone) if why else None
                s.failure = (f"node {s.node + 1} ({node.describe()}): no way to {node.target or node.location}"
                             + (f" ({because})" if because else ""))
                self._say(i, s, t, f"FAILED {s.failure}")
                return self.idle
            if route.actions:
                return route.actions[0]
            self._say(i, s, t, f"node {s.node + 1} reached: {node.describe()}"
                      + (f" ({route.actor})" if route.actor and route.actor != node.target else ""))
            s.waited = 0
            if node.action in self.manoeuvres:
                s.manoeuvre = self.nav.manoeuvre(node.action, route.actor or node.target)  # type: ignore[attr-defined]
                self._say(i, s, t, f"{node.action} {route.actor or node.target}")
                continue
            if node.action is not None:
                return self._act(i, s, node.action, route.actor or node.target, f, t)
        if not s.finished:
            s.finished = True
            if self.plan.nodes:  # rules alone play on to the end, with no nodes to be done
                self._say(i, s, t, "all nodes done")
        return self.idle

    def _of(self, actor: str, target: str | None) -> bool:
        """Whether ``actor`` (``coin_2``) is ``target``: its name, its type or its category's."""
        kind = actor.rsplit("_", 1)[0]
        return target is not None and (actor == target or kind == target
                                       or kind in getattr(self.nav, "categories", {}).get(target, ()))

    @staticmethod
    def _at(f: np.ndarray, node: Node) -> bool:
        """Whether the place (the first two state features) is within the node's tolerance."""
        x, y = node.location  # type: ignore[misc]
        return abs(float(f[0]) - x) + abs(float(f[1]) - y) <= (node.tolerance or 0)

    # -- the end ---------------------------------------------------------------------------

    def _arrived_at_end(self, i: int, s: _Follower, f: np.ndarray, steps: int) -> None:
        """Nodes without an action that the last step reached count as done (the episode
        ended on the step that got there: no later step would have seen it)."""
        while s.failure is None and not s.finished and s.waited < 0 and s.node < len(self.plan.nodes):
            node = self.plan.nodes[s.node]
            if node.action is not None or node.wait:
                return
            if node.movement == "straight":
                here = self._at(f, node)
            else:
                target = tuple(node.location) if node.location is not None else node.target
                found = self.nav.route(f, target, tolerance=node.tolerance, gone=frozenset(s.gone))  # type: ignore[arg-type]
                here = found is not None and not found.actions
            if not here:
                return
            self._say(i, s, steps, f"node {s.node + 1} reached: {node.describe()}")
            self._say(i, s, steps, f"node {s.node + 1} done")
            s.node += 1
            if s.node == len(self.plan.nodes):
                s.finished = True
                self._say(i, s, steps, "all nodes done")

    def finish(self, i: int, events: Sequence[str], features: np.ndarray, steps: int, ended: bool) -> PlanResult:
        """Judge copy ``i`` once its episode is over after ``steps`` steps (``ended``: the game
        ended it, else the step budget ran out)."""
        s = self.followers[i]
        self._judge(i, s, s.validator.end(tuple(events), np.asarray(features), steps))
        self._arrived_at_end(i, s, np.asarray(features), steps)
        last = len(self.plan.nodes) - 1
        s.finished = s.finished or not self.plan.nodes  # rules alone: nothing left undone, however they played
        if s.failure is None and not s.finished and s.node == last and s.waited >= 0 and s.manoeuvre is None:
            # The last node's action ended the episode (the shrine ends the level): done.
            self._say(i, s, steps, f"node {s.node + 1} done")
            self._say(i, s, steps, "all nodes done")
            s.node, s.finished = s.node + 1, True
        if s.failure is None and not s.finished:
            node = self.plan.nodes[s.node]
            deaths = [e for e in events if event_kind(e) == "player_died"]
            why = f"the episode ended ({', '.join(events) or 'the game ended it'})" if ended else \
                f"{steps} steps were not enough"
            s.failure = f"node {s.node + 1} ({node.describe()}) not done: {why}" if not deaths else \
                f"node {s.node + 1} ({node.describe()}) not done: {deaths[0]}"
            self._say(i, s, steps, f"FAILED {s.failure}")
        return PlanResult(s.failure is None, s.failure, list(s.lines), steps, s.node, s.failed)
