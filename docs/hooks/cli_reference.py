"""MkDocs hook: the CLI reference, rendered from the ``evo`` argparse parsers at build time.

A page that holds the marker ``<!-- cli-reference -->`` gets, in its place, every command and
sub-command of ``evo`` (as :func:`evo.cli.main._parser` builds them) with its usage line and a
table of its arguments and options. The page can then never disagree with the parser.

Building the parser only builds it: it installs no signal handler and starts no watchdog
(``evo.cli.main.main`` does those). The options of ``evo vision``'s model kinds are added when
a kind is parsed; this hook adds them all (:func:`evo.cli.vision.with_every_kind`, which imports
the model modules: torch); a failure to import or build is logged as a warning, which fails a
``mkdocs build --strict``, and the page says so instead of listing nothing.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import Iterator

MARKER = "<!-- cli-reference -->"
ROOT = Path(__file__).resolve().parents[2]
log = logging.getLogger("mkdocs.hooks.cli_reference")


def build_parser() -> argparse.ArgumentParser:
    """The ``evo`` parser, imported from the checkout this hook belongs to."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from evo.cli.main import _parser
    from evo.cli.vision import with_every_kind

    return with_every_kind(_parser())


def commands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """``(command path, help, parser)`` for every sub-command, depth first, in the parser's order:
    ``("plan run", "follow a plan YAML ...", <parser>)``."""
    for action in parser._actions:  # argparse keeps its actions private; there is no public list
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
        for name, sub in action.choices.items():
            path = sub.prog.split(" ", 1)[1] if " " in sub.prog else name
            yield path, helps.get(name, ""), sub
            yield from commands(sub)


def _cell(text: object) -> str:
    """Text for a Markdown table cell: one line, no column bars, no HTML tags, no emphasis."""
    text = " ".join(str(text).split())
    for char, escaped in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("|", "&#124;"), ("*", "\\*")):
        text = text.replace(char, escaped)
    return text


def _default(value: object) -> str:
    if value is None or value is argparse.SUPPRESS or value is False or value == []:
        return ""
    text = str(value)
    # Defaults that are files of this checkout (the shipped weights) are shown from its root.
    if text.startswith(str(ROOT) + os.sep):
        text = os.path.relpath(text, ROOT)
    return f"`{text}`"


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = parser.formatter_class(prog=parser.prog, width=88)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups, prefix="")
    return formatter.format_help().strip()


def _arguments(parser: argparse.ArgumentParser) -> list[str]:
    formatter = parser.formatter_class(prog=parser.prog)
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if action.option_strings:
            name = ", ".join(action.option_strings)
            if action.nargs != 0:
                name += " " + formatter._format_args(action, action.dest.upper())
        else:
            name = formatter._format_args(action, action.dest)
        help_text = formatter._expand_help(action) if action.help else ""
        if action.required and action.option_strings:
            help_text = f"required. {help_text}"
        if action.choices is not None:
            help_text += f" (one of: {', '.join(map(str, action.choices))})"
        rows.append(f"| `{name}` | {_cell(help_text)} | {_default(action.default)} |")
    if not rows:
        return []
    return ["| argument | what | default |", "|---|---|---|", *rows, ""]


def render(parser: argparse.ArgumentParser) -> str:
    """The reference as Markdown: one section per command, nested commands one level deeper."""
    lines = [f"`evo`: {parser.description}", "", "```text", _usage(parser), "```", ""]
    for path, help_text, sub in commands(parser):
        depth = min(2 + path.count(" "), 4)
        lines += [f"{'#' * depth} `evo {path}`", ""]
        if help_text:
            lines += [_cell(help_text[0].upper() + help_text[1:]) + ".", ""]
        lines += ["```text", _usage(sub), "```", ""]
        lines += _arguments(sub)
    return "\n".join(lines)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ANN001 (MkDocs' objects)
    if MARKER not in markdown:
        return markdown
    try:
        text = render(build_parser())
    except Exception as exc:  # noqa: BLE001 (any failure is reported, and fails --strict)
        log.warning("cli_reference: could not build the evo parser: %s: %s", type(exc).__name__, exc)
        text = f"!!! failure \"The CLI reference could not be generated\"\n    {type(exc).__name__}: {exc}\n"
    return markdown.replace(MARKER, text)
