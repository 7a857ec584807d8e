"""How the lab prints a figure and a table: numbers with their unit, a median with its spread, a
duration, and tables as Markdown (the reports) or aligned text (the terminal)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from loomlab.stats import Spread


def fmt(v, digits=1, unit="") -> str:
    if v is None or (isinstance(v, float) and (math.isnan(v) or math.isinf(v))):
        return "-"
    if isinstance(v, str):
        return v
    return f"{v:,.{digits}f}{unit}"


def fmt_duration(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def fmt_spread(s: Spread, digits=1, unit="") -> str:
    if not s.n:
        return "-"
    if s.n == 1 or s.low == s.high:
        return fmt(s.median, digits, unit)
    return f"{fmt(s.median, digits, unit)} ({fmt(s.low, digits)}-{fmt(s.high, digits)})"


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]] = field(default_factory=list)
    note: str = ""  # a line under the table (what it adds up to), where it has one

    def add(self, *cells):
        self.rows.append([str(c) for c in cells])

    def markdown(self) -> str:
        out = ["| " + " | ".join(self.headers) + " |", "|" + "|".join("---" for _ in self.headers) + "|"]
        out += ["| " + " | ".join(r) + " |" for r in self.rows]
        return "\n".join(out + (["", self.note] if self.note else []))

    def text(self) -> str:
        widths = [max([len(h), *(len(r[i]) for r in self.rows)]) for i, h in enumerate(self.headers)]

        def line(cells):
            return "  ".join(
                c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=False))
            )

        lines = [line(self.headers), line(["-" * w for w in widths])] + [line(r) for r in self.rows]
        return "\n".join(lines + ([self.note] if self.note else []))
