"""Files and folders the user names on the command line: inputs read as text or YAML, and
outputs (``--out``, ``--video``) checked before any work starts.

Every problem is a :class:`ConfigError` of one line naming the path and what was
expected, which the command line prints with exit code 2: never a traceback, and never one
after an hour's run because the output turned out to be a file where a folder should be.
Nothing here writes, so a file already there is left as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


class ConfigError(ValueError):
    """Bad input from the user (an experiment file, an override, a path); the message is one
    line for the user. :mod:`evo.run.config` raises it too, as ``evo.run.config.ConfigError``."""


def read_text(path: str | Path, what: str) -> str:
    """The text of a file the user named; ``what`` says which ("experiment file").

    A leading byte-order mark (Windows editors write one) is dropped.

    Raises:
        ConfigError: the file is missing, a folder, unreadable or not UTF-8 text.
    """
    path, a_what = Path(path), ("an " if what[0] in "aeiou" else "a ") + what
    if path.is_dir():
        raise ConfigError(f"{path}: is a folder; expected {a_what}")
    if not path.is_file():
        raise ConfigError(f"{path}: no such {what}")
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        byte = f"byte {exc.object[exc.start]:#04x} at offset {exc.start}"
        raise ConfigError(f"{path}: not UTF-8 text ({byte}); expected {a_what} in UTF-8") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror}); expected {a_what}") from None


def read_yaml(path: str | Path, what: str) -> Any:
    """The data of a YAML file the user named (``what`` as in :func:`read_text`).

    Raises:
        ConfigError: as :func:`read_text`, or the text is not YAML (a line number where
            PyYAML gives one). Only plain data is built: no tag constructs an object.
    """
    try:
        return yaml.safe_load(read_text(path, what))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}: not valid YAML{where}") from None


def check_out_folder(path: Path, option: str = "--out") -> None:
    """Raise unless ``path`` is a folder or can be made one (no file on its way).

    Raises:
        ConfigError: ``path``, or a folder above it, is a file.
    """
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{option} {path}: is a file; expected a folder to write into")
    _check_parents(path, option)


def check_new_run_dir(path: Path, option: str = "--out") -> None:
    """Raise unless ``path`` can be a new run directory: absent or an empty folder.

    Args:
        option: Where the path came from, for the message (``--out``, ``runs_dir``).

    Raises:
        ConfigError: as :func:`check_out_folder`, or the folder holds something already.
    """
    check_out_folder(path, option)
    if path.exists() and any(path.iterdir()):
        raise ConfigError(f"{path}: already exists and is not empty; choose another --out or --resume it")


def check_out_file(path: Path, option: str = "--out") -> None:
    """Raise unless a file can be written at ``path`` (an existing file is replaced).

    Raises:
        ConfigError: ``path`` is a folder, or a folder above it is a file.
    """
    if path.is_dir():
        raise ConfigError(f"{option} {path}: is a folder; expected a file name")
    _check_parents(path, option)


def _check_parents(path: Path, option: str) -> None:
    """The nearest existing folder above ``path`` must be a folder: mkdir would fail on a file."""
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ConfigError(f"{option} {path}: {parent} is a file; expected a folder")
            return
