"""Files and folders the user names on the command line: outputs (``--out``, ``--video``)
checked before any work starts.

Every problem is a :class:`evo.config.ConfigError` of one line naming the path and what was
expected, which the command line prints with exit code 2: never a traceback, and never one
after an hour's run because the output turned out to be a file where a folder should be.
Nothing here writes, so a file already there is left as it was.
"""

from __future__ import annotations

from pathlib import Path

from evo.config import ConfigError


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
