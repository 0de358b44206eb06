"""The README's picture of a run's page: ``report.html`` in headless Chromium, as a PNG.

Usage (from the repository root, with the test extra and Debian's chromium and
chromium-driver installed)::

    evo run experiments/wuji_block_maze.yaml budget.wall_seconds=60 --out runs/shot
    python docs/screenshot.py runs/shot --out docs/report.png

It writes the run's page with every bug's video (``evo report RUN_DIR --html --videos``)
where the page is missing, opens it from disk, waits until the videos show their last frame
(the bug ringed), and saves the window scrolled to the bugs: the filter by kind, the first
bugs with their videos.
The PNG is scaled down and cut to a palette of 256 colours, which keeps it small enough to
live in the repository (under 100 kB).
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

from evo.cli.main import main as evo  # noqa: E402
from tests.headless_chromium import missing, open_file, severe, start  # noqa: E402  (one browser set-up)

SEEK = """
document.querySelectorAll('video').forEach(v => {
  v.addEventListener('seeked', () => { v.dataset.seeked = '1'; }, {once: true});
  v.currentTime = Math.max(0, v.duration - 0.1);
});
"""
"""Show each video's last frame (the bug, ringed, with its message) instead of a blank box."""
READY = "return Array.from(document.querySelectorAll('video')).every(v => v.readyState >= 2)"
SEEKED = "return Array.from(document.querySelectorAll('video')).every(v => v.dataset.seeked && v.readyState >= 2)"


def screenshot(run_dir: Path, out: Path, width: int, height: int, scale: float, colours: int) -> int:
    """Save the window on ``run_dir``'s page at its bugs; the PNG's size in bytes."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    page = run_dir / "report.html"
    if not page.is_file() and evo(["report", str(run_dir), "--html", "--videos"]) != 0:
        raise SystemExit(f"could not write {page}")
    driver = start(width, height)
    try:
        open_file(driver, page)
        WebDriverWait(driver, 30).until(lambda d: d.execute_script(READY))
        driver.execute_script(SEEK)
        WebDriverWait(driver, 30).until(lambda d: d.execute_script(SEEKED))
        bugs = driver.find_element(By.ID, "bugs-title")
        driver.execute_script("arguments[0].scrollIntoView(); window.scrollBy(0, -8);", bugs)
        time.sleep(1.0)  # the media controls' loading spinner fades out
        png = driver.get_screenshot_as_png()
        errors = severe(driver)
    finally:
        driver.quit()
    if errors:
        raise SystemExit(f"{page} logged errors: {errors}")
    image = Image.open(io.BytesIO(png)).convert("RGB")
    image = image.resize((round(image.width * scale), round(image.height * scale)), Image.LANCZOS)
    image = image.quantize(colors=colours)
    out.parent.mkdir(parents=True, exist_ok=True)
    image.save(out, optimize=True)
    return out.stat().st_size


def run(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path, help="a run directory (its report.html is written if missing)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "report.png")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=1000)
    parser.add_argument("--scale", type=float, default=0.75, help="of the saved picture (default 0.75)")
    parser.add_argument("--colours", type=int, default=256)
    args = parser.parse_args(argv)
    reason = missing()
    if reason is None and importlib.util.find_spec("selenium") is None:
        reason = "selenium is not installed (pip install -e '.[test]')"
    if reason is not None:
        print(f"screenshot.py: {reason}", file=sys.stderr)
        return 2
    size = screenshot(args.run_dir, args.out, args.width, args.height, args.scale, args.colours)
    print(f"wrote {args.out}: {size / 1000:.0f} kB")
    return 0


if __name__ == "__main__":
    raise SystemExit(run())
