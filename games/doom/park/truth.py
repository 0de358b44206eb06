"""Ground truth of the park's texture bugs: which objects are bugged, and which one a report is.

PPGTA (Section V-A; ``../shared/papers/ppgta-preference-conditioned-pixel-agent.txt``) seeds
half of each type of object of interest (OOI) with a texture bug. The game contract
(``injected_bugs``, ``match(bug)``; :class:`games.core.base.Game`) asks a benchmark game to say
what it seeded and which seeded bug a report is, so that a run is scored on distinct bugs
found and on false reports. Here:

- one :class:`games.core.base.InjectedBug` per bugged OOI, kind ``"visual"``, its id the OOI's id,
  located at ``(x, y, 0.0)`` (the park's state features are ``(x, y, angle)``);
- a report is a bug of kind ``"visual"`` whose ``data`` names the object's ``type`` and map
  place ``x``, ``y`` (what the visual oracle estimates from what the agent saw;
  :func:`games.core.scene.report_place`); it is the
  nearest bugged OOI of that type within :data:`MATCH_RADIUS` map units, else a false report
  (a report on a normal OOI, or where there is none).

Read only to score a run: nothing here reaches an agent, a detector or an oracle's verdict.
"""

from __future__ import annotations

from typing import Any, Sequence

from games.core.base import InjectedBug
from games.core.scene import object_near, report_place
from games.doom.park.layout import OOI

__all__ = ["MATCH_RADIUS", "injected_bugs", "match", "ooi_near", "report_place"]

MATCH_RADIUS = 128.0
"""Map units between a report's place and the OOI it is about: two layout cells. OOIs stand
at least three cells (192 units) apart, and a place estimated from frames is off by about the
object's own size (a pillar is 32 units wide), so a report rarely lies near two OOIs."""


def injected_bugs(oois: Sequence[OOI]) -> list[InjectedBug]:
    """One visual :class:`InjectedBug` per bugged OOI, with the OOI's id and located at it
    (so it is on that OOI of the scene, :func:`games.core.scene.objects_with_bugs`), in id order."""
    return [
        InjectedBug(o.id, "visual", (float(o.x), float(o.y), 0.0),
                    f"{o.type} with a {o.bug} texture")
        for o in oois if o.bugged
    ]


def ooi_near(oois: Sequence[OOI], type_: str, x: float, y: float, *,
             within: float = MATCH_RADIUS, bugged_only: bool = False) -> OOI | None:
    """The OOI of ``type_`` nearest to ``(x, y)`` within ``within`` map units (only among the
    bugged ones with ``bugged_only``); None when there is none. Ties go to the lower id."""
    return object_near([o for o in oois if o.bugged or not bugged_only], type_, x, y, within)


def match(oois: Sequence[OOI], bug: Any) -> int | None:
    """The id of the bugged OOI a report is about (see the module), None for a false report
    or a bug of another kind."""
    place = report_place(bug)
    if place is None:
        return None
    found = ooi_near(oois, *place, bugged_only=True)
    return None if found is None else found.id
