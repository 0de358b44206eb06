"""The import graph of the project's packages, drawn from the code.

Used twice: the MkDocs hook below renders it as a diagram where ``docs/architecture.md`` has
the marker ``<!-- import-graph -->``, and ``tests/test_architecture.py`` checks it against the
page's table of which part may import which. The picture is computed, the rules are written
down, and the test holds the code to the rules, so neither can drift.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("evo", "games", "objectives", "oracles")
PAGE = ROOT / "docs" / "architecture.md"
MARKER = "<!-- import-graph -->"
# Package roots whose __init__ only re-exports or installs old module names: not a part.
ROOTS = {"evo"}


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every project module by dotted name."""
    out = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Project modules ``name`` imports anywhere in its body (an import inside a function counts)."""
    found = set()
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                keep = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(keep + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def module_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> project modules it imports (a package's __init__ re-exporting its own modules
    is how a registry fills itself, so those edges are left out)."""
    mods = modules(root)
    known = set(mods)
    return {name: {t for t in imports(name, path, known) if not name.startswith(t + ".")}
            for name, path in mods.items()}


def rules(page: Path = PAGE) -> dict[str, set[str]]:
    """The page's table: part -> the parts it may import."""
    out: dict[str, set[str]] = {}
    for line in page.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        out[cells[0].strip("`")] = set(re.findall(r"`([\w.]+)`", cells[1]))
    return out


def part_of(module: str, parts: list[str]) -> str | None:
    """The longest part that holds ``module`` (None for a package root such as ``evo``)."""
    if module in ROOTS:
        return None
    best = None
    for part in parts:
        if (module == part or module.startswith(part + ".")) and (best is None or len(part) > len(best)):
            best = part
    return best


def part_graph(parts: list[str], root: Path = ROOT) -> dict[tuple[str, str], list[str]]:
    """(part, imported part) -> the module imports behind that arrow."""
    out: dict[tuple[str, str], list[str]] = defaultdict(list)
    for module, targets in module_graph(root).items():
        a = part_of(module, parts)
        for target in targets:
            b = part_of(target, parts)
            if a and b and a != b:
                out[(a, b)].append(f"{module} -> {target}")
    return dict(out)


def mermaid(parts: list[str], edges: list[tuple[str, str]]) -> str:
    """A top-down flowchart: the command line on top, the game contracts at the bottom."""
    ids = {p: p.replace(".", "_") for p in parts}
    lines = ["```mermaid", "flowchart TD"]
    lines += [f'  {ids[p]}["{p}"]' for p in parts]
    lines += [f"  {ids[a]} --> {ids[b]}" for a, b in edges]
    return "\n".join(lines + ["```"])


def on_page_markdown(markdown: str, page: object, **_: object) -> str:
    """MkDocs hook: the diagram of today's imports where the architecture page asks for it."""
    if MARKER not in markdown:
        return markdown
    parts = list(rules())
    return markdown.replace(MARKER, mermaid(parts, sorted(part_graph(parts))))
