"""Reading the markdown tables the pages and reports print, one way for every test."""


def cells(line: str) -> list[str]:
    """A table row's cells, stripped: '| a | b |' -> ['a', 'b']."""
    return [c.strip() for c in line.strip().strip("|").split("|")]


def body_rows(markdown: str) -> list[list[str]]:
    """The body rows of a markdown table (its header and rule left out)."""
    return [cells(line) for line in markdown.splitlines() if line.startswith("|")][2:]


def block(text: str, name: str) -> list[list[str]]:
    """The body rows of the table between <!-- name --> and <!-- /name --> in a page."""
    return body_rows(text[text.index(f"<!-- {name} -->") : text.index(f"<!-- /{name} -->")])
