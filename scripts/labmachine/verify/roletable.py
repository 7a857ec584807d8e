"""docs/kubernetes.md's table of what the runner may do, checked against what the API server says
the runner may do (`kubectl auth can-i --list` as the runner, in the namespace): every resource and
verb granted is in the table, and the table grants nothing more. What every authenticated user may
(reviews of its own access) is left out of both."""

from __future__ import annotations

import re

from labmachine.verify import ROOT
from labmachine.verify.apiserver import ApiServer

PAGE = ROOT / "docs" / "kubernetes.md"
HEADER = "| resources | verbs | used by |"
EVERYONE = (".authorization.k8s.io", ".authentication.k8s.io")  # self-subject reviews: any user's


def key(resource: str) -> str:
    """A resource as the page names it: without its API group (deployments.apps/status:
    deployments/status), but the metrics API's pods."""
    resource, slash, sub = resource.partition("/")
    name, _, group = resource.partition(".")
    return (f"{group} {name}" if group == "metrics.k8s.io" else name) + slash + sub


def granted(server: ApiServer, subject: str, namespace: str) -> dict[str, set[str]]:
    """Resource -> verbs, from `auth can-i --list`'s table (resources with their group, verbs in [])."""
    p = server.must(
        f"access: auth can-i --list as {subject}", "--as", subject, "-n", namespace, "auth", "can-i", "--list"
    )
    rights: dict[str, set[str]] = {}
    for line in p.stdout.splitlines()[1:]:
        if line.startswith(" ") or not line.strip():
            continue  # a non-resource URL's row
        resource, verbs = line.split()[0], re.findall(r"\[([^\]]*)\]", line)[-1].split()
        if not resource.endswith(EVERYONE):
            rights.setdefault(key(resource), set()).update(verbs)
    return rights


def documented(page: str) -> dict[str, set[str]]:
    """Resource -> verbs, from the page's table: 'a, b (+ `/status` get)' grants a and b the row's
    verbs and a/status and b/status get."""
    rows = page.split(HEADER, 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    rights: dict[str, set[str]] = {}
    for row in rows:
        resources, verbs = (cell.strip() for cell in row.strip("|").split("|")[:2])
        status = "(+ `/status` get)" in resources
        for name in resources.replace("(+ `/status` get)", "").split(","):
            rights.setdefault(name.strip(), set()).update(v.strip() for v in verbs.split(","))
            if status:
                rights.setdefault(f"{name.strip()}/status", set()).add("get")
    return rights


def differences(server: ApiServer, subject: str, namespace: str) -> list[str]:
    """Each resource whose verbs the page and the API server give otherwise."""
    said, page = granted(server, subject, namespace), documented(PAGE.read_text())
    return [
        f"{r}: the API server {sorted(said.get(r, ()))}, docs/kubernetes.md {sorted(page.get(r, ()))}"
        for r in sorted(set(said) | set(page))
        if said.get(r, set()) != page.get(r, set())
    ]
