"""HTML pages: ``evo report RUN_DIR --html [--videos]`` and ``evo compare ... --html``."""

from __future__ import annotations

import json
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import yaml

from evo.cli.main import main
from evo.run.config import parse_experiment
from evo.run.kinds.evolve import Evolve

pytest.importorskip("jinja2", reason="the report extra (Jinja2) is not installed")


class Page(HTMLParser):
    """What a test reads off a page: every tag's attributes, the bug rows, the headings."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.headings: list[str] = []
        self._heading = False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._heading = tag in ("h1", "h2")
        if self._heading:
            self.headings.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h1", "h2"):
            self._heading = False

    def handle_data(self, data: str) -> None:
        if self._heading:
            self.headings[-1] += data

    def all(self, tag: str, **attrs: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.tags if t == tag and all(a.get(k) == v for k, v in attrs.items())]


def _run(folder: Path, name: str, objectives: list[str]) -> Path:
    from tests.conftest import TINY

    config: dict[str, Any] = yaml.safe_load(yaml.safe_dump(TINY))
    config.update(name=name, objectives=[{"name": o} for o in objectives], bug_replays=3)
    config["budget"]["generations"] = 2
    path = folder / name
    Evolve(parse_experiment(config), path).run()
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two tiny Block Maze runs of two strategies."""
    folder = tmp_path_factory.mktemp("html")
    return [_run(folder, "tiny_wuji", ["winning", "coverage"]), _run(folder, "tiny_single", ["winning"])]


def _bugs(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "bugs.jsonl").read_text().splitlines()]


def test_run_page_has_every_bug_the_summary_the_figures_and_the_tables(runs: list[Path]) -> None:
    run_dir = runs[0]
    assert main(["report", str(run_dir), "--html"]) == 0
    page = Page((run_dir / "report.html").read_text())
    bugs = _bugs(run_dir)
    assert len(bugs) >= 2
    rows = [a for t, a in page.tags if t == "tr" and a.get("data-kind")]
    assert [(r["id"], r["data-kind"]) for r in rows] == [(f"bug-{b['id']}", b["kind"]) for b in bugs]
    text = (run_dir / "report.html").read_text()
    for bug in bugs:  # its message, how often it showed again, and the command that replays it
        assert bug["message"].replace("'", "&#39;") in text or bug["message"] in text
        showed, played = bug["reproduced"]  # bug_replays: 3 (performance: its 5 confirmations)
        assert f"<td data-sort=\"{showed / played}\">{showed} of {played}</td>" in text
        assert f"evo replay {run_dir} {bug['id']}" in text
    assert {"Summary", "Figures", "low fps points"} <= {h.split(" (")[0] for h in page.headings}
    figures = [a for a in page.all("img") if str(a.get("src", "")).startswith("data:image/png;base64,")]
    assert len(figures) == 4  # bugs over steps and seconds, objectives, coverage map: inline
    assert page.all("select", id="kind-filter") and page.all("table", id="bugs")
    assert page.all("script") and all(a.get("src") is None for a in page.all("script"))  # inline JS
    assert "http://" not in text and "https://" not in text  # works offline: nothing fetched


def test_videos_are_made_on_demand_and_shown_on_the_page(runs: list[Path]) -> None:
    pytest.importorskip("imageio_ffmpeg")
    run_dir = runs[1]
    assert main(["report", str(run_dir), "--html", "--videos"]) == 0
    bugs = _bugs(run_dir)
    for bug in bugs:
        assert (run_dir / "videos" / f"bug-{bug['id']}.mp4").stat().st_size > 1000
    page = Page((run_dir / "report.html").read_text())
    assert sorted(a["src"] for a in page.all("video")) == sorted(f"videos/bug-{b['id']}.mp4" for b in bugs)


def test_compare_page_reads_run_dirs(runs: list[Path], tmp_path: Path, capsys) -> None:
    out = tmp_path / "cmp"
    assert main(["compare", *map(str, runs), "--out", str(out), "--html"]) == 0
    assert "compare.html" in capsys.readouterr().out
    text = (out / "compare.html").read_text()
    page = Page(text)
    assert {"Summary per strategy", "Pairwise statistics", "Runs", "Figures"} <= set(page.headings)
    assert "tiny_wuji" in text and "tiny_single" in text
    assert len(page.all("table")) == 3 and len(page.all("img")) >= 3


def test_a_missing_jinja2_is_one_line_and_exit_2(
    runs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    monkeypatch.setitem(sys.modules, "jinja2", None)
    for args in (["report", str(runs[0]), "--html"], ["compare", str(runs[0]), "--out", str(tmp_path), "--html"]):
        assert main(args) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "Traceback" not in err
        assert "jinja2" in err and "pip install -e '.[report]'" in err
    assert not (tmp_path / "compare.html").exists()
