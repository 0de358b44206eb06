"""The documentation site: ``mkdocs build --strict`` succeeds, so no page links to a page or
anchor that is not there and no API page names a module mkdocstrings cannot find; and the
command line reference, generated from the argparse parsers, names every command and option."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="the docs extra: pip install -e '.[docs]'")
pytest.importorskip("material", reason="the docs extra: pip install -e '.[docs]'")
pytest.importorskip("mkdocstrings_handlers.python", reason="the docs extra: pip install -e '.[docs]'")

from mkdocs.utils.yaml import yaml_load  # noqa: E402  (reads the !!python/name tags of mkdocs.yml)

from evo.cli.main import _parser  # noqa: E402
from evo.cli.vision import with_every_kind  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config), "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    result = build(ROOT / "mkdocs.yml", out)
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stderr[-6000:]}"
    return out


def subcommands(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, argparse.ArgumentParser]:
    """``{"plan run": <parser>, ...}``: every command of ``evo``, nested ones by their path."""
    found = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found[f"{prefix}{name}"] = sub
                found.update(subcommands(sub, f"{prefix}{name} "))
    return found


@pytest.mark.slow
def test_the_site_builds_with_every_page_and_api_reference(site: Path) -> None:
    config = yaml_load((ROOT / "mkdocs.yml").read_text())

    def pages(nav: object) -> list[str]:
        if isinstance(nav, str):
            return [nav]
        items = nav.values() if isinstance(nav, dict) else nav
        return [page for item in items for page in pages(item)]

    for page in pages(config["nav"]):
        html = site / page.removesuffix(".md").removesuffix("index") / "index.html"
        assert html.is_file(), page
    api = (site / "reference" / "api" / "games-core-base" / "index.html").read_text()
    assert 'id="games.core.base.GameSpec"' in api
    experiment = (site / "reference" / "experiment-yaml" / "index.html").read_text()
    for key in ("until_all_found", "frontier_share", "max_rss_mb", "floor_ms", "min_views"):
        assert f"<code>{key}</code>" in experiment, key


@pytest.mark.slow
def test_the_cli_reference_names_every_command_and_option(site: Path) -> None:
    commands = subcommands(with_every_kind(_parser()))
    assert set(commands) >= {
        "run", "replay", "report", "compare", "evaluate", "plan run", "plan from-text", "plan suite",
        "plan record", "plan export", "shrink", "regress", "vision train", "vision eval",
    }
    html = (site / "reference" / "cli" / "index.html").read_text()
    headings = set(re.findall(r'<h[2-6] id="([^"]+)"', html))
    for path, parser in commands.items():
        assert "evo-" + path.replace(" ", "-") in headings, path
        for action in parser._actions:
            for option in [] if isinstance(action, argparse._HelpAction) else action.option_strings:
                assert f"<code>{option}" in html or f", {option}" in html, f"evo {path} {option}"


@pytest.mark.parametrize("page, complaint", [
    ("See [the guide](guides/nowhere.md).\n", "guides/nowhere.md"),
    ("See [the run](#no-such-heading).\n", "no-such-heading"),
    ("::: games.core.no_such_module\n", "games.core.no_such_module"),
    ("## A heading\n\nSee [it](#a-heading).\n\n::: games.core.record\n", None),  # the control: it builds
])
def test_a_broken_link_or_api_reference_fails_the_build(tmp_path: Path, page: str, complaint: str | None) -> None:
    """The site's own settings (inherited), on a one-page site that holds the mistake."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(f"# A page\n\n{page}")
    hooks = "".join(f"  - {ROOT / hook}\n" for hook in yaml_load((ROOT / "mkdocs.yml").read_text())["hooks"])
    (tmp_path / "mkdocs.yml").write_text(
        f"INHERIT: {ROOT / 'mkdocs.yml'}\ndocs_dir: {tmp_path / 'docs'}\nnav: [index.md]\nexclude_docs: ''\n"
        f"hooks:\n{hooks}"
        f"plugins:\n  - search\n  - mkdocstrings:\n      handlers:\n        python:\n          paths: [{ROOT}]\n"
    )
    result = build(tmp_path / "mkdocs.yml", tmp_path / "site")
    if complaint is None:
        assert result.returncode == 0, result.stderr[-3000:]
    else:
        assert result.returncode != 0
        assert complaint in result.stderr
