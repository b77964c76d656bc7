"""The Markdown table the figure generators write."""

from __future__ import annotations


def table(head: list[str], rows: list[list[str]]) -> str:
    """A Markdown table: the header cells, their rule, then a row of cells per list."""
    lines = ["| " + " | ".join(cells) + " |" for cells in [head, *rows]]
    lines.insert(1, "|" + "---|" * len(head))
    return "\n".join(lines)
