"""A griffe extension for the docs site (mkdocs.yml): Sphinx roles in docstrings, such as
``:meth:`reset_wait` ``, become plain code spans, since the site renders docstrings as
Markdown."""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:meth|attr|class|func|mod|obj|data|exc):`~?([^`]+)`")


class SphinxRoles(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(r"`\1`", obj.docstring.value)
