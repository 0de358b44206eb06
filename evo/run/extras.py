"""Optional packages: a feature that needs one says so in one line, with what to install.

The ``report`` extra (``pip install -e '.[report]'``) brings imageio and imageio-ffmpeg for
replay videos and Jinja2 for HTML pages. The CLI turns :class:`MissingExtra` into one line on
stderr and exit code 2, as it does bad input.
"""

from __future__ import annotations

import importlib

REPORT = "pip install -e '.[report]'"


class MissingExtra(RuntimeError):
    """An optional package a feature needs is not installed; the message says what to install."""


def require(feature: str, *modules: str, install: str = REPORT) -> None:
    """Import ``modules`` or raise :class:`MissingExtra` naming the first that is missing.

    Args:
        feature: What needs them, for the message ("a .mp4 video").
        modules: Import names.
        install: The command that installs them.
    """
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:
            raise MissingExtra(f"{feature} needs the Python package {name!r}, which is not installed: {install}") from None
