"""Reading the markdown tables the pages and reports print, one way for every test."""


def cells(line: str) -> list[str]:
    """A table row's cells, stripped: '| a | b |' -> ['a', 'b']."""
    return [c.strip() for c in line.strip().strip("|").split("|")]
