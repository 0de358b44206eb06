"""The HTML pages in a real browser: ``report.html`` and ``compare.html`` opened in headless
Chromium as a person would open them from disk (``file://``), scripts run, videos decoded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evo.cli.main import main
from tests import headless_chromium
from tests.evo.report.test_html import _run
from tests.headless_chromium import open_file, severe

pytest.importorskip("jinja2", reason="the report extra (Jinja2) is not installed")
pytest.importorskip("imageio_ffmpeg", reason="the report extra (imageio-ffmpeg) is not installed")

chromium = headless_chromium.chromium  # the browser fixture, one per module
pytestmark = pytest.mark.slow  # two tiny runs and six videos first: about half a minute


def test_without_a_browser_the_reason_names_the_packages(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no chromium, no chromedriver
    reason = headless_chromium.missing()
    assert reason is not None and "no Chromium on PATH" in reason and "chromium-driver" in reason
    (tmp_path / "chromium").write_text("#!/bin/sh\n")
    (tmp_path / "chromium").chmod(0o755)
    assert headless_chromium.missing() == "no chromedriver on PATH (apt-get install chromium-driver)"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two tiny Block Maze runs of two strategies; the first has its page and its videos."""
    folder = tmp_path_factory.mktemp("browser")
    runs = [_run(folder, "tiny_wuji", ["winning", "coverage"]), _run(folder, "tiny_single", ["winning"])]
    assert main(["report", str(runs[0]), "--html", "--videos"]) == 0
    return runs


def _bugs(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "bugs.jsonl").read_text().splitlines()]


def _visible_rows(driver: Any) -> list[tuple[str, str]]:
    from selenium.webdriver.common.by import By

    return [(row.get_attribute("id"), row.get_attribute("data-kind"))
            for row in driver.find_elements(By.CSS_SELECTOR, "#bugs tbody tr") if row.is_displayed()]


def test_run_page_loads_without_errors_and_shows_every_bug(chromium: Any, runs: list[Path]) -> None:
    bugs = _bugs(runs[0])
    assert len({b["kind"] for b in bugs}) >= 2, "the tiny run should find bugs of two kinds at least"
    open_file(chromium, runs[0] / "report.html")
    assert severe(chromium) == []
    assert chromium.title.startswith("tiny_wuji")
    assert _visible_rows(chromium) == [(f"bug-{b['id']}", b["kind"]) for b in bugs]


def test_filter_by_kind_shows_only_that_kind(chromium: Any, runs: list[Path]) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    bugs = _bugs(runs[0])
    open_file(chromium, runs[0] / "report.html")
    kinds = Select(chromium.find_element(By.ID, "kind-filter"))
    for kind in sorted({b["kind"] for b in bugs}):
        kinds.select_by_value(kind)
        assert _visible_rows(chromium) == [(f"bug-{b['id']}", kind) for b in bugs if b["kind"] == kind]
        assert chromium.find_element(By.ID, "bug-count").text == str(sum(b["kind"] == kind for b in bugs))
    kinds.select_by_value("")
    assert len(_visible_rows(chromium)) == len(bugs)
    assert severe(chromium) == []


def test_a_click_on_a_header_sorts_the_bugs(chromium: Any, runs: list[Path]) -> None:
    from selenium.webdriver.common.by import By

    ids = [b["id"] for b in _bugs(runs[0])]
    open_file(chromium, runs[0] / "report.html")
    header = chromium.find_element(By.XPATH, "//table[@id='bugs']//th[text()='id']")
    header.click()
    header.click()  # the second click sorts descending
    assert [row for row, _ in _visible_rows(chromium)] == [f"bug-{i}" for i in sorted(ids, reverse=True)]


def test_every_bug_video_decodes_in_the_browser(chromium: Any, runs: list[Path]) -> None:
    """Chromium reads each MP4 beside the page: metadata loaded, a duration, a picture size."""
    from selenium.webdriver.support.ui import WebDriverWait

    bugs = _bugs(runs[0])
    open_file(chromium, runs[0] / "report.html")
    state = "return Array.from(document.querySelectorAll('video')).map(v => " \
            "({src: v.getAttribute('src'), ready: v.readyState, duration: v.duration, " \
            "width: v.videoWidth, error: v.error && v.error.code}))"
    WebDriverWait(chromium, 30).until(
        lambda d: all(v["ready"] >= 1 or v["error"] for v in d.execute_script(state)))
    videos = chromium.execute_script(state)
    assert sorted(v["src"] for v in videos) == sorted(f"videos/bug-{b['id']}.mp4" for b in bugs)
    for video in videos:
        assert video["error"] is None, video
        assert video["duration"] > 1 and video["width"] == 480, video
    assert severe(chromium) == []


def test_compare_page_loads_without_errors_and_shows_its_summary(
    chromium: Any, runs: list[Path], tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    out = tmp_path / "cmp"
    assert main(["compare", *map(str, runs), "--out", str(out), "--html"]) == 0
    open_file(chromium, out / "compare.html")
    assert severe(chromium) == []
    title = chromium.find_element(By.XPATH, "//h2[text()='Summary per strategy']")
    summary = title.find_element(By.XPATH, "following-sibling::table[1]")
    assert summary.is_displayed()
    strategies = {row.find_elements(By.TAG_NAME, "td")[0].text
                  for row in summary.find_elements(By.CSS_SELECTOR, "tbody tr")}
    assert strategies == {"tiny_wuji", "tiny_single"}
    images = chromium.execute_script(
        "return Array.from(document.images).map(i => i.complete && i.naturalWidth > 0)")
    assert images and all(images)  # every figure decoded
