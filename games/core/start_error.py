"""The one error of a game that cannot be started: raised where any part of a run makes an
isolated copy (:mod:`games.adapter.process_runner`), read by the command line as one line."""

from __future__ import annotations

__all__ = ["GameStartError"]


class GameStartError(RuntimeError):
    """An isolated copy's game could not be started in its worker process, in one line naming
    the game, the copy and what happened: the game's own error (its type first), its process's
    death, or the deadline (``game.start_timeout_s``) it missed.

    Args:
        why: What happened, naming the copy.
        copy: The copy's index.
        game: The game's name (:meth:`with_game`).
    """

    def __init__(self, why: str, copy: int = 0, game: str | None = None) -> None:
        super().__init__(why, copy, game)  # all of them in args: it is pickled back from a worker
        self.why, self.copy, self.game = why, copy, game

    def __str__(self) -> str:
        return f"game: {self.game or 'the game'} could not be started ({self.why})"

    def with_game(self, game: str) -> "GameStartError":
        """The same error naming the game ``game``."""
        return GameStartError(self.why, self.copy, game)
