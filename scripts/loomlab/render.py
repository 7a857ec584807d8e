"""The harness's documents (report.md, report.html) from Jinja2 templates in loomlab/templates:
the prose lives in the template, the figures come from the caller."""

from __future__ import annotations

import functools

import jinja2


@functools.cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("loomlab", "templates"),
        # HTML templates escape every value; markdown ones keep it as written.
        autoescape=jinja2.select_autoescape(["html", "html.j2", "svg.j2"], default_for_string=False),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render(template: str, **context: object) -> str:
    """`template` (a file name under loomlab/templates) filled with `context`."""
    return _environment().get_template(template).render(**context)
