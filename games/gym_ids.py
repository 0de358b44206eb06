"""Gymnasium ids of any installed package, plain or in ``gym.make``'s ``module:id`` form.

A package of games (MiniGrid, highway-env, ale-py, ...) registers its ids when it is imported,
and nothing imports it for a YAML that only names an id. Gymnasium's answer is the
``"module:id"`` form, which imports ``module`` first; a user who writes the plain id, as every
package's README does, got "doesn't exist". Here a plain id that Gymnasium does not know is
looked for in the installed packages that depend on Gymnasium: each is imported in turn (the
one whose name is closest to the id's first), until one registers the id. The id is then
played as ``module:id``, so that worker processes, spawned with Gymnasium's own ids only,
import the same package before they make it.
"""

from __future__ import annotations

import difflib
import importlib
import os
import re
from importlib import metadata

import gymnasium as gym

__all__ = ["GymIdNotFound", "resolve_gym_id"]

KNOWN_MODULES = {"ALE": "ale_py"}
"""Id namespaces (``namespace/Name-vN``) whose package is known without a search."""

SKIPPED_DISTRIBUTIONS = frozenset({"gymnasium", "evo-game-testing"})
"""Distributions never imported in the search: Gymnasium itself, and this project (whose
games are found by name, not by id)."""


class GymIdNotFound(LookupError):
    """A Gymnasium id that no installed package registers (the message says what is close)."""


_RESOLVED: dict[str, str] = {}


def resolve_gym_id(gym_id: str) -> str:
    """The form of ``gym_id`` that ``gymnasium.make`` plays in a fresh process: the id itself
    where Gymnasium knows it without an import, else ``module:id`` with the package that
    registers it. Cached per process.

    Raises:
        GymIdNotFound: No installed package registers it; the message names the closest ids
            and the ``module:id`` form.
    """
    if gym_id not in _RESOLVED:
        _RESOLVED[gym_id] = _resolve(gym_id)
    return _RESOLVED[gym_id]


def _resolve(gym_id: str) -> str:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # pygame's banner, per copy made
    module, _, env_id = gym_id.rpartition(":")
    if module:
        _import(module, gym_id)
        _after_import(module, env_id)
        _check_registered(env_id, gym_id, f"module {module!r} was imported but does not register it")
        return gym_id
    namespace = env_id.split("/", 1)[0] if "/" in env_id else ""
    if namespace in KNOWN_MODULES:
        module = KNOWN_MODULES[namespace]
        _import(module, gym_id)
        _after_import(module, env_id)
        _check_registered(env_id, gym_id, f"{module} is installed but does not register it")
        return f"{module}:{env_id}"
    if _registered(env_id):
        return _played_form(env_id)
    for module in _candidates(env_id):
        try:
            importlib.import_module(module)
        except Exception:  # noqa: BLE001 - a broken package is not the one the user means
            continue
        if _registered(env_id):
            _after_import(module, env_id)
            return f"{module}:{env_id}"
    _check_registered(env_id, gym_id, "no installed package registers it")
    return env_id  # unreachable: the check raised


def _played_form(env_id: str) -> str:
    """A registered id as a fresh process plays it: ``module:id`` with the module of its entry
    point (importing it imports the package that registers the id), the id alone for
    Gymnasium's own games. A package imported before (by a user's wrapper, say) registered
    the id here, but a worker process starts without it."""
    entry = gym.spec(env_id).entry_point
    module = entry.split(":", 1)[0] if isinstance(entry, str) else getattr(entry, "__module__", "")
    if not module or module.split(".", 1)[0] in ("gymnasium", "__main__"):
        return env_id
    return f"{module}:{env_id}"


def _registered(env_id: str) -> bool:
    try:
        gym.spec(env_id)
    except gym.error.Error:
        return False
    return True


def _import(module: str, gym_id: str) -> None:
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise GymIdNotFound(
            f"game.gym_id {gym_id!r}: cannot import module {module!r} ({exc}); install the "
            "package that registers the id"
        ) from None


def _check_registered(env_id: str, gym_id: str, why: str) -> None:
    if _registered(env_id):
        return
    close = difflib.get_close_matches(env_id, list(gym.registry), n=3, cutoff=0.6)
    hint = f"; close ids: {', '.join(close)}" if close else ""
    raise GymIdNotFound(
        f"game.gym_id {gym_id!r} is not a Gymnasium id ({why}){hint}; an id of a package that "
        "registers its games when imported may be written 'package:Id' "
        "(e.g. 'minigrid:MiniGrid-DoorKey-8x8-v0')"
    )


def _candidates(env_id: str) -> list[str]:
    """Top-level modules of the installed distributions that require Gymnasium (not as an
    extra), the one whose name is closest to the id's first word first."""
    modules_of: dict[str, list[str]] = {}
    for module, dists in metadata.packages_distributions().items():
        for dist in dists:
            modules_of.setdefault(_normal(dist), []).append(module)
    found: list[str] = []
    for dist in metadata.distributions():
        name = _normal(dist.metadata["Name"] or "")
        if name in SKIPPED_DISTRIBUTIONS or not any(_needs_gymnasium(r) for r in dist.requires or ()):
            continue
        found += [m for m in modules_of.get(name, ()) if m.isidentifier() and not m.startswith("_")]
    word = _normal(re.split(r"[-/]", env_id, maxsplit=1)[0]).replace("-", "")
    return sorted(set(found), key=lambda m: (-difflib.SequenceMatcher(None, word, m.lower()).ratio(), m))


def _needs_gymnasium(requirement: str) -> bool:
    name = re.split(r"[\s;<>=!~\[(]", requirement.strip(), maxsplit=1)[0]
    return _normal(name) == "gymnasium" and "extra" not in requirement


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _after_import(module: str, env_id: str) -> None:
    """What a known package needs once imported: ale-py's banner silenced (two lines per
    copy made, dozens in an isolated run's terminal; its errors still print) and the
    ``-ram-`` ids of older papers registered."""
    if module.split(".", 1)[0] != "ale_py":
        return
    from ale_py import ALEInterface, LoggerMode

    ALEInterface.setLoggerMode(LoggerMode.Error)
    _register_ale_ram_id(env_id)


def _register_ale_ram_id(gym_id: str) -> None:
    """Register ``ALE/<Game>-ram-v5`` as ``ALE/<Game>-v5`` observing RAM, when ale-py lacks it.

    Gymnasium's Atari ids had ``-ram`` variants; ale-py 0.9 and later register only
    ``obs_type`` as a kwarg. The alias is the same game with ``obs_type="ram"`` (128 bytes),
    so ids from older papers and configs run as written.
    """
    if "-ram-" not in gym_id or gym_id in gym.registry:
        return
    base = gym.registry.get(gym_id.replace("-ram-", "-"))
    if base is None:
        return
    gym.register(
        id=gym_id,
        entry_point=base.entry_point,
        kwargs={**base.kwargs, "obs_type": "ram"},
        max_episode_steps=base.max_episode_steps,
        reward_threshold=base.reward_threshold,
        nondeterministic=base.nondeterministic,
    )
