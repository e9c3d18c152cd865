"""Plain-text tables for the reliability and soak reports."""

from __future__ import annotations


def table(rows: list[list[str]]) -> str:
    """Rows as aligned columns, the first row a header."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)
