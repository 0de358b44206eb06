"""Ground truth of the park's texture bugs: which objects are bugged, and which one a report is.

PPGTA (Section V-A; ``../shared/papers/ppgta-preference-conditioned-pixel-agent.txt``) seeds
half of each type of object of interest (OOI) with a texture bug. The game contract
(``injected_bugs``, ``match(bug)``; :class:`games.core.base.Game`) asks a benchmark game to say
what it seeded and which seeded bug a report is, so that a run is scored on distinct bugs
found and on false reports. Here:

- one :class:`games.core.base.InjectedBug` per bugged OOI, kind ``"visual"``, its id the OOI's id,
  located at ``(x, y, 0.0)`` (the park's state features are ``(x, y, angle)``);
- a report is a bug of kind ``"visual"`` whose ``data`` names the object's ``type`` and map
  place ``x``, ``y`` (what the visual oracle estimates from what the agent saw); it is the
  nearest bugged OOI of that type within :data:`MATCH_RADIUS` map units, else a false report
  (a report on a normal OOI, or where there is none).

Read only to score a run: nothing here reaches an agent, a detector or an oracle's verdict.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from games.core.base import InjectedBug
from games.doom.park.layout import OOI

__all__ = ["MATCH_RADIUS", "injected_bugs", "match", "ooi_near", "report_place"]

MATCH_RADIUS = 128.0
"""Map units between a report's place and the OOI it is about: two layout cells. OOIs stand
at least three cells (192 units) apart, and a place estimated from frames is off by about the
object's own size (a pillar is 32 units wide), so a report rarely lies near two OOIs."""


def injected_bugs(oois: Sequence[OOI]) -> list[InjectedBug]:
    """One visual :class:`InjectedBug` per bugged OOI, with the OOI's id, in id order."""
    return [
        InjectedBug(o.id, "visual", (float(o.x), float(o.y), 0.0),
                    f"{o.type} with a {o.bug} texture")
        for o in oois if o.bugged
    ]


def report_place(bug: Any) -> tuple[str, float, float] | None:
    """``(type, x, y)`` a visual report names in its ``data``; None for any other kind of
    bug, or a visual report that names no type or place."""
    if getattr(bug, "kind", None) != "visual":
        return None
    data = getattr(bug, "data", None) or {}
    try:
        x, y = float(data["x"]), float(data["y"])
    except (KeyError, TypeError, ValueError):
        return None
    kind = data.get("type")
    if not isinstance(kind, str) or not (math.isfinite(x) and math.isfinite(y)):
        return None
    return kind, x, y


def ooi_near(oois: Sequence[OOI], type_: str, x: float, y: float, *,
             within: float = MATCH_RADIUS, bugged_only: bool = False) -> OOI | None:
    """The OOI of ``type_`` nearest to ``(x, y)`` within ``within`` map units (only among the
    bugged ones with ``bugged_only``); None when there is none. Ties go to the lower id."""
    best: OOI | None = None
    best_d = float(within)
    for o in oois:
        if o.type != type_ or (bugged_only and not o.bugged):
            continue
        d = math.hypot(o.x - x, o.y - y)
        if d <= best_d and (best is None or d < best_d):
            best, best_d = o, d
    return best


def match(oois: Sequence[OOI], bug: Any) -> int | None:
    """The id of the bugged OOI a report is about (see the module), None for a false report
    or a bug of another kind."""
    place = report_place(bug)
    if place is None:
        return None
    found = ooi_near(oois, *place, bugged_only=True)
    return None if found is None else found.id
