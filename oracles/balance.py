"""Balance oracle: one type of opponent far stronger than the rest (Wuji's fourth oracle).

Wuji lists balance bugs among what its oracles look for: a side or a type whose statistic
over many episodes stands out. This oracle reads the game's events (``info.events``:
``"kind:actor[:amount]"`` strings, the actor's type being its name without the trailing
number), adds up per actor type the damage the player took (``player_damaged`` events, the
amount last, 1 when absent) over encounters (an episode and an actor named by any
encounter event: the player hit, hit back or killed it), and reports a type whose damage per
encounter is an outlier among the types.

An outlier is above ``min_ratio`` times the median over the types (by default: twice what
the median type costs the player), or, for games with many types, above the robust bound
``median + k * 1.4826 * MAD`` (the MAD scaled to a normal's standard deviation; k = 3 is the
usual "three sigma" cut-off). Medians, not means, so that the strong type does not raise
its own bar. Counts add up over every batch the oracle checks, so the statistic holds
many episodes; a type is judged only once it has ``min_encounters`` encounters.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Literal

import numpy as np
from pydantic import Field

from games.core.component import Context
from games.core.base import GameSpec
from games.core.navigation import actor_type
from games.core.record import RolloutBatch
from oracles.base import Bug, Oracle, OracleConfig, register

MAD_TO_SD = 1.4826
"""The MAD of a normal sample times this estimates its standard deviation."""


def parse_event(event: str) -> tuple[str, str, float]:
    """``"player_damaged:ogre_1:6"`` -> ``("player_damaged", "ogre_1", 6.0)``; the actor is
    ``""`` and the amount 1 when absent."""
    parts = event.split(":")
    amount = 1.0
    if len(parts) > 2:
        try:
            amount = float(parts[2])
        except ValueError:
            pass
    return parts[0], parts[1] if len(parts) > 1 else "", amount


class BalanceConfig(OracleConfig):
    """Settings of the balance oracle."""

    damage_event: str = "player_damaged"
    """Event kind whose amount is the damage an actor dealt to the player."""

    encounter_events: tuple[str, ...] = ("player_damaged", "enemy_hit", "enemy_killed")
    """Event kinds that make an (episode, actor) pair an encounter."""

    threshold: Literal["ratio", "mad"] = "ratio"
    """How far from the other types an outlier is: ``ratio``, above ``min_ratio`` times the
    median over types; ``mad``, above median + k * 1.4826 * MAD (for games with many types:
    over three, the MAD of a few types is too unsteady to judge by)."""

    min_ratio: float = Field(default=2.0, gt=1.0)
    """The ``ratio`` bound: a type that costs the player twice what the median type costs."""

    k: float = Field(default=3.0, gt=0.0)
    """The ``mad`` bound's number of (robust) standard deviations."""

    min_encounters: int = Field(default=5, ge=1)
    """Encounters a type needs, over all batches checked, before it is judged."""

    min_types: int = Field(default=3, ge=2)
    """Types with enough encounters needed for a median to mean anything."""


@register("balance", BalanceConfig)
class BalanceOracle(Oracle):
    """Reports a ``balance`` bug per actor type whose damage per encounter is an outlier.

    The signature is ``balance:<type>``; the replay handle ends with the last blow of the
    batch's costliest encounter with that type, so a replay holds the whole encounter.
    """

    name = "balance"
    requires = frozenset({"info.events"})

    def __init__(self, spec: GameSpec, config: BalanceConfig, context: Context) -> None:
        self.spec = spec
        self.config = config
        self.damage: dict[str, float] = defaultdict(float)
        self.encounters: dict[str, int] = defaultdict(int)
        self.reported: set[str] = set()
        self.baseline: tuple[dict[str, float], dict[str, int]] | None = None
        """The run's counts while replaying (see :meth:`forget_visits`)."""

    def statistics(self) -> dict[str, float]:
        """Damage per encounter of every type with at least ``min_encounters`` encounters.

        After :meth:`forget_visits` (a replay), a type met again is judged on the new
        encounters alone, however few, against the run's values of the other types.
        """
        def values(damage: dict[str, float], encounters: dict[str, int], least: int) -> dict[str, float]:
            return {t: damage[t] / n for t, n in encounters.items() if n >= least}

        live = values(self.damage, self.encounters, self.config.min_encounters if self.baseline is None else 1)
        if self.baseline is None:
            return dict(sorted(live.items()))
        run = values(self.baseline[0], self.baseline[1], self.config.min_encounters)
        return dict(sorted({**run, **live}.items()))

    def outliers(self) -> tuple[dict[str, float], float, float]:
        """``({type: value}, median, bound)`` of the types beyond the threshold."""
        stats = self.statistics()
        if len(stats) < self.config.min_types:
            return {}, float("nan"), float("nan")
        values = np.array(list(stats.values()))
        median = float(np.median(values))
        mad = float(np.median(np.abs(values - median)))
        if self.config.threshold == "ratio":
            bound = self.config.min_ratio * median
        else:
            bound = median + self.config.k * MAD_TO_SD * mad
        return {t: v for t, v in stats.items() if v > bound}, median, bound

    def check(self, rollouts: RolloutBatch) -> list[Bug]:
        """Add this batch's encounters to the counts and report the types now beyond the bound."""
        events = rollouts.info.get("events")
        if events is None:
            return []
        cfg = self.config
        # (row, actor) -> [damage, step of its last blow]: a replay up to that step holds
        # the whole encounter's damage.
        fights: dict[tuple[int, str], list[float]] = {}
        valid = rollouts.valid
        for i, t in zip(*np.nonzero(valid)):
            for event in events[i, t] or ():
                kind, actor, amount = parse_event(str(event))
                if kind not in cfg.encounter_events or not actor:
                    continue
                fight = fights.setdefault((int(i), actor), [0.0, int(t)])
                if kind == cfg.damage_event:
                    fight[0] += amount
                    fight[1] = int(t)
        for (_, actor), (dealt, _) in fights.items():
            kind = actor_type(actor)
            self.damage[kind] += dealt
            self.encounters[kind] += 1
        found, median, bound = self.outliers()
        bugs: list[Bug] = []
        for kind, value in found.items():
            mine = [(dealt, i, int(step)) for (i, actor), (dealt, step) in fights.items() if actor_type(actor) == kind]
            if kind in self.reported or not mine:
                continue
            self.reported.add(kind)
            _, i, step = max(mine, key=lambda m: (m[0], -m[1]))
            bugs.append(Bug.at_step(
                rollouts[i], step, kind="balance", oracle=self.name, signature=f"balance:{kind}",
                message=(f"{kind} deals {value:.2f} damage per encounter over {self.encounters[kind]} "
                         f"encounters; median over types {median:.2f}, bound {bound:.2f}"),
                data={"type": kind, "value": value, "median": median, "bound": bound,
                      "per_type": self.statistics()},
            ))
        return bugs

    def state_dict(self) -> dict[str, object]:
        return {"damage": dict(self.damage), "encounters": dict(self.encounters),
                "reported": sorted(self.reported)}

    def load_state_dict(self, state: dict[str, object]) -> None:
        self.damage = defaultdict(float, state.get("damage", {}))  # type: ignore[arg-type]
        self.encounters = defaultdict(int, state.get("encounters", {}))  # type: ignore[arg-type]
        self.reported = set(state.get("reported", []))  # type: ignore[arg-type]

    def forget_visits(self) -> None:
        """Before a replay: the run's counts become the baseline the replayed encounters are
        judged against, and counting starts again."""
        self.baseline = (dict(self.damage), dict(self.encounters))
        self.damage.clear()
        self.encounters.clear()
        self.reported.clear()
