"""Stage 5, access: deploy/k8s/access applied for real to the test API server, then the runner's
account tried there (`kubectl --as`): every refusal its Role and its admission policy promise, seen,
and the lab's own objects accepted (cases.py). The same cases again as two other subjects the Role
is bound to (a second account, a person), and under another namespace's name (team-x, from
deploy/k8s/testdata/team-x): the policy judges the namespace, not one account's name. A case decided
otherwise fails the stage."""

from __future__ import annotations

from collections.abc import Callable

import yaml

from labmachine.verify import K8S, Failure
from labmachine.verify.apiserver import ApiServer
from labmachine.verify.cases import NAMESPACE, Case, cases, pinned, volume_claim
from labmachine.verify.database import database_cases
from labmachine.verify.roletable import differences
from loomlab import proc

RUNNER = "system:serviceaccount:loom-lab:loom-lab-runner"
TEAM = "team-x"
# deploy/k8s/testdata/others binds the runner's Role to these two, each judged as the runner is.
OTHERS = ("system:serviceaccount:loom-lab:second-runner", "a-person")


def decided(server: ApiServer, case: Case, subject: str = RUNNER) -> tuple[bool, str]:
    p = server.kubectl("--as", subject, "create", "--dry-run=server", "-f", "-", stdin=yaml.safe_dump(case.doc))
    return p.returncode == 0, " ".join((p.stderr or p.stdout).split())[-200:]


def can_i(server: ApiServer, verb: str, resource: str) -> bool:
    """Whether the runner may; "pods/exec" is a subresource (kubectl alone would read a pod named
    exec), "secrets NAME" one object."""
    kind, _, sub = resource.partition("/")
    asked = [kind.replace(" ", "/")] + (["--subresource", sub] if sub else [])  # "secrets NAME": one by name
    p = server.kubectl("--as", RUNNER, "-n", NAMESPACE, "auth", "can-i", verb, *asked)
    return p.stdout.strip() == "yes"


# (verb, resource, whether the Role grants it)
RBAC = (
    ("create", "pods", True),
    ("create", "pods/exec", False),
    ("create", "pods/attach", False),
    ("create", "pods/portforward", False),
    ("get", "secrets", False),
    ("list", "secrets", False),
    ("patch", "secrets db-credentials", False),
    ("update", "secrets db-credentials", False),
    ("delete", "networkpolicies", False),
    ("create", "services/proxy", False),
    ("patch", "pods/proxy", False),
    ("create", "pods/proxy", False),
)


KEPT, CREATES = "loom-lab-configmaps-kept", "loom-lab-runner-creates"


def admins(monitoring: list[dict]) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """What the runner tries on objects it may not change, each with the policy that must refuse it:
    the registries and the database's first-start scripts (deploy/k8s/access) and Prometheus
    (deploy/k8s/monitoring), applied as the admin; an unbound claim, applied as the admin here (the
    runner's first run makes it)."""
    (config,) = [d["metadata"]["name"] for d in monitoring if d["kind"] == "ConfigMap"]
    merge = ("--type", "merge", "-p")
    watched = "loom-lab-monitoring-kept"
    return (
        ("change the registries", KEPT,
         ("patch", "configmap", "loom-lab-registries", *merge, '{"data":{"registries":"x/"}}')),
        ("delete the registries", KEPT, ("delete", "configmap", "loom-lab-registries")),
        ("create the database's first-start scripts", KEPT,
         ("create", "configmap", "postgres-init", "--from-literal=app-role.sh=cat /run/secrets/db/*")),
        ("change the database's first-start scripts", KEPT,
         ("patch", "configmap", "postgres-init", *merge, '{"data":{"app-role.sh":"cat /run/secrets/db/*"}}')),
        ("delete the database's first-start scripts", KEPT, ("delete", "configmap", "postgres-init")),
        ("give its unbound claim a volume by name", CREATES,
         ("patch", "pvc", "loadgen-results-unbound", *merge, '{"spec":{"volumeName":"someone-elses"}}')),
        ("change Prometheus' configuration", watched, ("patch", "configmap", config, *merge, '{"data":{"x":"y"}}')),
        ("delete Prometheus", watched, ("delete", "deployment", "prometheus")),
        ("take the label off Prometheus' Service", watched,
         ("label", "service", "prometheus", "app.kubernetes.io/component-")),
    )  # fmt: skip


def kept(server: ApiServer, policy: str, args: tuple[str, ...]) -> tuple[bool, str]:
    """Whether admission policy `policy` refused the runner `args` (a dry run), and what was said."""
    p = server.kubectl("--as", RUNNER, "-n", NAMESPACE, *args, "--dry-run=server")
    said = " ".join((p.stderr or p.stdout).split())
    return p.returncode != 0 and f"ValidatingAdmissionPolicy '{policy}'" in said, said[-200:]


def in_namespace(case: Case, namespace: str) -> Case:
    """The case as under another namespace's name (an autoscaler's Prometheus that namespace's)."""
    doc = yaml.safe_load(yaml.safe_dump(case.doc).replace(f"prometheus.{NAMESPACE}.", f"prometheus.{namespace}."))
    doc["metadata"]["namespace"] = namespace
    return Case(case.name, doc, case.allowed)


def applied(server: ApiServer, docs: list[dict], judged: list[Case], subject: str) -> None:
    """`docs` applied as the admin, then waited for: the policies take effect once the API server
    has loaded them and the registries (their parameter), so a first refusal and a first acceptance
    of `subject`'s are awaited."""
    server.must("access", "apply", "-f", "-", stdin=yaml.safe_dump_all(docs))
    refused = next(c for c in judged if not c.allowed)
    accepted = next(c for c in judged if c.allowed)
    proc.wait_until(lambda: not decided(server, refused, subject)[0] and decided(server, accepted, subject)[0], 60, 0.5)


def judged(server: ApiServer, each: list[Case], subject: str, say: Callable[[str], None], loud: bool) -> list[str]:
    """The cases `subject` asked for that were decided otherwise than promised (each said if loud)."""
    wrong = []
    for case in each:
        ok, said = decided(server, case, subject)
        if loud:
            say(f"   access: {case.name}: {'accepted' if ok else 'refused: ' + said}")
        if ok != case.allowed:
            wrong.append(f"{case.name} (as {subject})")
    if not loud:
        say(f"   access: as {subject}: {len(each) - len(wrong)} of {len(each)} cases decided as promised")
    return wrong


def reapplied(server: ApiServer, say: Callable[[str], None]) -> list[str]:
    """A later run's apply of its bound claim (the binder's volume name in it) accepted, or why not."""
    again = volume_claim("loadgen-results-bound", {})
    p = server.kubectl(
        "--as", RUNNER, "apply", "--server-side", "--dry-run=server", "-f", "-", stdin=yaml.safe_dump(again)
    )
    said = "yes" if p.returncode == 0 else "no: " + " ".join(p.stderr.split())[-200:]
    say(f"   access: the runner may apply its bound claim again? {said}")
    return [] if p.returncode == 0 else ["a later run's apply of a bound claim"]


def check(server: ApiServer, rendered: dict[str, list[dict]], lab: list[dict], say: Callable[[str], None]) -> None:
    """Stage 5 on the rendered kustomizations: access (and team-x's) and monitoring applied as the admin."""
    monitoring = rendered["monitoring"]
    (lab, access), (_, team) = pinned(lab, rendered["access"]), pinned(lab, rendered["team-x"])
    others = yaml.safe_load((K8S / "testdata" / "others" / "rolebinding.yaml").read_text())
    each = [*cases(lab), *database_cases(lab)]
    applied(server, [*access, others], each, RUNNER)
    wrong = judged(server, each, RUNNER, say, loud=True)
    for subject in OTHERS:
        wrong += judged(server, each, subject, say, loud=False)
    team_cases = [in_namespace(c, TEAM) for c in each]
    applied(server, team, team_cases, f"system:serviceaccount:{TEAM}:loom-lab-runner")
    wrong += judged(server, team_cases, f"system:serviceaccount:{TEAM}:loom-lab-runner", say, loud=False)
    bound = volume_claim("loadgen-results-bound", {"volumeName": "its-own"})  # as the binder leaves it
    claims = [bound, volume_claim("loadgen-results-unbound", {})]
    if server.kubectl("apply", "-f", "-", stdin=yaml.safe_dump_all([*monitoring, *claims])).returncode != 0:
        raise Failure("access: deploy/k8s/monitoring and two claims not applied")
    wrong += reapplied(server, say)
    for what, policy, args in admins(monitoring):
        held, said = kept(server, policy, args)
        say(f"   access: the runner may {what}? {'no: ' + said if held else 'yes: ' + said}")
        if not held:
            wrong.append(what)
    said = server.kubectl("-n", NAMESPACE, "get", "serviceaccount", "default", "-o",
                          "jsonpath={.automountServiceAccountToken}").stdout.strip()  # fmt: skip
    say(f"   access: the namespace's default account mounts a token? {'no' if said == 'false' else 'yes'}")
    if said != "false":
        wrong.append("the default account's token")
    for verb, resource, granted in RBAC:
        can = can_i(server, verb, resource)
        say(f"   access: can the runner {verb} {resource}? {'yes' if can else 'no'}")
        if can != granted:
            wrong.append(f"{verb} {resource}")
    table = differences(server, RUNNER, NAMESPACE)
    say(f"   access: docs/kubernetes.md's table of the Role is what auth can-i --list says? {table or 'yes'}")
    wrong += [f"docs/kubernetes.md's table: {d}" for d in table]
    if wrong:
        raise Failure("access: decided otherwise than the Role and the policy promise: " + "; ".join(wrong))
