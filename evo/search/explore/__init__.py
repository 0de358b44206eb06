"""Deep exploration (Go-Explore): an archive of the cells a run reached, and returns to them.

:mod:`evo.search.explore.cell_archive` keeps every state bucket reached with the shortest way there;
:mod:`evo.search.explore.frontier` picks cells, starts episodes from them and checks that the game
replays to them; :mod:`evo.search.explore.config` has the YAML's ``search.strategy`` and
``search.frontier_share``. Not to be confused with :class:`oracles.archive.BugArchive`, the
archive of bugs.
"""
