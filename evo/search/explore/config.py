"""The YAML keys of deep exploration, ``search.strategy`` and ``search.frontier_share``.

Kept apart from :mod:`evo.run.config` and mixed into its ``SearchConfig``, so that the search
section stays one flat mapping in the YAML.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class ExplorationFields(BaseModel):
    """Where episodes start: from the reset, or from cells the run already reached."""

    model_config = ConfigDict(extra="forbid")

    strategy: Literal["evolve", "go_explore"] = Field(
        "evolve", description="evolve: the population plays from the reset (frontier_share of its "
        "episodes from archived cells); go_explore: every episode after the first generation "
        "returns to an archived cell, then explores with random actions (Go-Explore's phase 1; "
        "needs agent: random).",
    )
    frontier_share: float = Field(
        0.0, ge=0, le=1, description="strategy evolve: share of each policy's evaluation episodes "
        "that start by returning to an archived cell (at least one episode when above 0); 0: "
        "every episode starts from the reset.",
    )

    explore_steps: int | Literal["auto"] | None = Field(
        None, description="Steps an episode plays from where it starts (after its return to an archived "
        "cell, or from the reset), then it ends: Go-Explore's exploration segment, so that a game of "
        "long episodes still returns, explores and archives many times a minute. null: until the game's "
        "horizon; auto: the horizon or Go-Explore's 100 steps, whichever is fewer (config.yaml records "
        "the number).",
    )
    snapshots: bool = Field(
        True, description="A return restores a snapshot of the game taken on the way to its cell, "
        "then replays at most 9 steps, where the game can be snapshotted (a Gymnasium game that pickles "
        "and plays on from its copy as from itself, checked at the start); else, and with false, it "
        "replays the whole way from the reset.",
    )
    generation_seconds: float | None = Field(
        None, gt=0, description="For a game whose first episodes the run plays to learn its cells (a game "
        "plugged in without a spec): a generation fitted to about this many seconds at the pace those "
        "episodes were played, with fewer episodes per policy, then fewer policies, never more than "
        "configured (config.yaml records the numbers). null: as configured.",
    )

    @model_validator(mode="after")
    def _strategy_fits(self) -> "ExplorationFields":
        if self.strategy == "go_explore":
            if self.frontier_share:
                raise ValueError("frontier_share applies to strategy evolve; go_explore returns in every episode")
        if isinstance(self.explore_steps, int) and self.explore_steps < 1:
            raise ValueError(f"explore_steps must be at least 1 (or auto, or null), got {self.explore_steps}")
        return self

    @property
    def return_share(self) -> float:
        """Share of evaluation episodes that return to an archived cell."""
        return 1.0 if self.strategy == "go_explore" else self.frontier_share
