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


def clock(text: str) -> dict[str, list[str]]:
    """A page's clock (the table between <!-- clock --> and <!-- /clock -->: step, from, to, took),
    by step without its bold; each step's time is checked against its from and to (HH:MM:SS)."""
    from datetime import datetime

    rows = {row[0].strip("*"): [c.strip("*") for c in row[1:]] for row in block(text, "clock")}
    for step, (start, end, took) in rows.items():
        span = datetime.strptime(end, "%H:%M:%S") - datetime.strptime(start, "%H:%M:%S")
        minutes, seconds = divmod(int(span.total_seconds()), 60)
        assert took == f"{minutes} min {seconds} s", f"{step}: {took}, its clock {minutes} min {seconds} s"
    return rows
