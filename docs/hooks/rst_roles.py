"""MkDocs hook: the code's docstrings cite names with reStructuredText roles
(``:class:`Rollout```), which mkdocstrings renders as Markdown, role and all
(``:class:<code>Rollout</code>``). This drops the role and keeps the code, on every page."""

from __future__ import annotations

import re

ROLE = re.compile(r":(?:py:)?(?:class|mod|func|meth|attr|data|exc|obj|const):(?=<code>)")


def on_page_content(html: str, page, config, files) -> str:  # noqa: ANN001 (MkDocs' objects)
    return ROLE.sub("", html)
