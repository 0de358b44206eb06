"""The shape of the code: the arrows of ``docs/architecture.md``, no import cycle, no module over
400 lines. The page's table says which part may import which; these tests hold the code to it
and keep the table honest (an arrow it allows is one the code draws)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 400
GAME_FAMILIES = ("games.maze", "games.dungeon", "games.atari", "games.classic", "games.doom", "games.unreal")

_spec = importlib.util.spec_from_file_location("architecture", ROOT / "docs" / "hooks" / "architecture.py")
arch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(arch)  # type: ignore[union-attr]

RULES = arch.rules()
PARTS = list(RULES)
EDGES = arch.part_graph(PARTS)


def test_the_page_names_every_part_it_allows() -> None:
    assert "games.core" in RULES and "evo.cli" in RULES
    assert {b for allowed in RULES.values() for b in allowed} <= set(RULES)


def test_every_module_belongs_to_a_part() -> None:
    orphans = [m for m in arch.modules() if m not in arch.ROOTS and arch.part_of(m, PARTS) is None]
    assert not orphans, f"add a row to docs/architecture.md for {orphans}"


@pytest.mark.parametrize("part", PARTS)
def test_a_part_imports_only_what_the_page_allows(part: str) -> None:
    wrong = {b: why for (a, b), why in EDGES.items() if a == part and b not in RULES[part]}
    assert not wrong, wrong


@pytest.mark.parametrize("part", PARTS)
def test_every_arrow_the_page_allows_is_drawn_by_the_code(part: str) -> None:
    unused = {b for b in RULES[part] if (part, b) not in EDGES}
    assert not unused, f"docs/architecture.md lets {part} import {sorted(unused)}, which it no longer does"


def test_games_objectives_and_oracles_know_nothing_of_evo() -> None:
    wrong = {a: why for (a, b), why in EDGES.items()
             if a.split(".")[0] in ("games", "objectives", "oracles") and b.startswith("evo")}
    assert not wrong, wrong


def test_nothing_outside_games_imports_a_particular_game() -> None:
    wrong = {(a, b): why for (a, b), why in EDGES.items()
             if not a.startswith("games") and b.startswith(GAME_FAMILIES)}
    assert not wrong, wrong


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycle() -> None:
    cycle = _cycle(arch.module_graph())
    assert cycle is None, " -> ".join(cycle or [])


def test_no_module_over_400_lines() -> None:
    long = {str(p.relative_to(ROOT)): n for p in arch.modules().values()
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, long


def test_the_diagram_draws_every_arrow() -> None:
    page = arch.on_page_markdown(arch.PAGE.read_text(), None)
    assert "```mermaid" in page and arch.MARKER not in page
    for a, b in EDGES:
        assert f"{a.replace('.', '_')} --> {b.replace('.', '_')}" in page
