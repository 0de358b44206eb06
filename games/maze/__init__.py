"""The Block Maze: Wuji's embedded benchmark game (:mod:`games.maze.block_maze`), how a maze is laid
out with its injected bugs (:mod:`games.maze.layout`) and how a plan agent finds its way in
it (:mod:`games.maze.navigation`)."""
