"""What stage 5 asks of the database's StatefulSet as the runner: the lab's own, accepted, and each
way its pod could print the superuser's password or the server's key to a log the runner reads,
refused (its program changed, a first-start script of its own, a key file where scripts run)."""

from __future__ import annotations

import copy
from collections.abc import Callable

from .cases import CLAIM, Case, edited, first_container

SECRET = "/run/secrets/db/admin-password"
INIT = "/docker-entrypoint-initdb.d"


def changed(statefulset: dict, change: Callable[[dict, dict], None]) -> dict:
    """The StatefulSet with `change(its pod template's spec, its first container)` made."""
    return edited(statefulset, lambda d: change(d["spec"]["template"]["spec"], first_container(d)))


def volume(spec: dict, name: str) -> dict:
    found: dict = next(v for v in spec["volumes"] if v["name"] == name)
    return found


def database_cases(lab: list[dict]) -> list[Case]:
    """The lab's StatefulSet, accepted, and each change of the database's pod
    that could print a key, refused. Long because it lists every case, one each, with its change."""
    statefulset = next(d for d in lab if d["kind"] == "StatefulSet")
    printing = ["sh", "-c", f"cat {SECRET}"]
    hook = {"postStart": {"exec": {"command": printing}}}
    alone = {"name": "passwords", "mountPath": f"{INIT}/x.sh", "subPath": "admin-password"}
    projected = {"name": "p", "projected": {"sources": [{"configMap": {"name": "x"}}]}}
    tls_as_user = {"name": "POSTGRES_USER", "valueFrom": {"secretKeyRef": {"name": "db-credentials", "key": "tls.key"}}}
    trust = {"name": "POSTGRES_HOST_AUTH_METHOD", "value": "trust"}

    def env(s: dict, c: dict, name: str, value: str) -> None:
        next(e for e in c["env"] if e["name"] == name)["value"] = value

    def template(doc: dict, name: str) -> dict:
        changed = copy.deepcopy(doc)
        changed["spec"]["volumeClaimTemplates"].append({"metadata": {"name": name}, "spec": CLAIM})
        return changed

    def shared(doc: dict) -> dict:
        return edited(doc, lambda d: d["spec"]["volumeClaimTemplates"][0]["spec"].update(accessModes=["ReadWriteOnce"]))

    def unprobed(c: dict) -> dict:  # an init container has no probes (the API refuses them)
        return {k: v for k, v in c.items() if not k.endswith("Probe")} | {"name": "x"}

    def mount(s: dict, c: dict, name: str, path: str) -> None:
        next(m for m in c["volumeMounts"] if m["name"] == name)["mountPath"] = path

    return [
        Case("the database initialised afresh elsewhere (PGDATA)",
             changed(statefulset, lambda s, c: env(s, c, "PGDATA", "/tmp/x")), False),
        Case("a role's password read from the TLS key",
             changed(statefulset, lambda s, c: env(s, c, "POSTGRES_OWNER_PASSWORD_FILE", "/run/secrets/db/tls.key")),
             False),
        Case("the database with a second container",
             changed(statefulset, lambda s, c: s["containers"].append(c | {"name": "x"})), False),
        Case("the database with an init container",
             changed(statefulset, lambda s, c: s.update(initContainers=[unprobed(c)])), False),
        Case("the database with a second claim template", template(statefulset, "loadgen-results-x"), False),
        Case("the database's data claim open to every pod of its node (ReadWriteOnce)", shared(statefulset), False),
        Case("the database's data volume mounted elsewhere",
             changed(statefulset, lambda s, c: mount(s, c, "data", "/var/lib/postgresql/x")), False),
        Case("the database's scripts' folder through a path of another spelling",
             changed(statefulset, lambda s, c: mount(s, c, "init", "//docker-entrypoint-initdb.d")), False),
        Case("the database's TLS key file elsewhere",
             changed(statefulset, lambda s, c: c["args"].extend(["-c", "ssl_key_file=/run/secrets/db/admin-password"])),
             False),
        Case("the database with a command of its own", changed(statefulset, lambda s, c: c.update(command=printing)),
             False),
        Case("the database starting a program of its own by its arguments",
             changed(statefulset, lambda s, c: c.update(args=printing)), False),
        Case("the database archiving through a command of its own",
             changed(statefulset, lambda s, c: c["args"].extend(["-c", f"archive_command=cat {SECRET}"])), False),
        Case("the database with a postgres flag other than -c",
             changed(statefulset, lambda s, c: c["args"].extend(["-D", "/tmp"])), False),
        Case("the database probed by a command of its own",
             changed(statefulset, lambda s, c: c["livenessProbe"].update(exec={"command": printing})), False),
        Case("the database with a start hook", changed(statefulset, lambda s, c: c.update(lifecycle=hook)), False),
        Case("the database trusting every connection",
             changed(statefulset, lambda s, c: c["env"].append(trust)), False),
        Case("the database's environment from a ConfigMap",
             changed(statefulset, lambda s, c: c.update(envFrom=[{"configMapRef": {"name": "x"}}])), False),
        Case("the database's TLS key as its superuser's name",
             changed(statefulset, lambda s, c: c["env"].append(tls_as_user)), False),
        Case("the database's first-start scripts from another ConfigMap",
             changed(statefulset, lambda s, c: volume(s, "init")["configMap"].update(name="x")), False),
        Case("the database's first-start scripts from a projected ConfigMap",
             changed(statefulset, lambda s, c: s["volumes"].append(projected)), False),
        Case("the superuser's password as a file named as a script",
             changed(statefulset, lambda s, c: volume(s, "passwords")["secret"]["items"][0].update(path="a.sh")),
             False),
        Case("the superuser's password mounted alone among the first-start scripts",
             changed(statefulset, lambda s, c: c["volumeMounts"].append(alone)), False),
    ]  # fmt: skip
