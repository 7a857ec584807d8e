"""`./lab k8s verify`'s k6 stage: every file a k6 script opens or imports (`import ... from './x'`,
`open('./x')`, `open(import.meta.resolve('./x'))`, a gRPC client's `load(['./dir'], 'file')`) is in
the scripts' ConfigMap and mounted where the script looks for it, in every Job and in the k6
operator's TestRun (which mounts the script's ConfigMap flat at /test, plus the runner's own
volumes). Kubernetes accepts a pod whose script will fail at start-up for a missing file; this
does not."""

from __future__ import annotations

import posixpath
import re

from . import Failure

RELATIVE = r"""(['"])(\.{1,2}/[^'"]*)\1"""
REFERENCES = [
    re.compile(r"\bfrom\s+" + RELATIVE),
    re.compile(r"\bimport\s+" + RELATIVE),
    re.compile(r"\bopen\(\s*(?:import\.meta\.resolve\(\s*)?" + RELATIVE),
]
# client.load(['./proto'], 'ingest.proto'): the file in the first directory of the list
GRPC_LOAD = re.compile(r"""\.load\(\s*\[[^\]]*?(['"])(\.{1,2}/[^'"]*)\1[^\]]*\]\s*,\s*(['"])([^'"]+)\3""")
OPERATOR_MOUNT = "/test"  # where the k6 operator mounts a TestRun's script ConfigMap


def references(source: str) -> list[str]:
    """The relative paths a k6 script reaches, as written."""
    found = [m.group(2) for pattern in REFERENCES for m in pattern.finditer(source)]
    found += [posixpath.join(m.group(2), m.group(4)) for m in GRPC_LOAD.finditer(source)]
    return found


def _configmap_files(volume: dict, configmaps: dict[str, dict]) -> dict[str, str]:
    """path inside the volume -> content, for a ConfigMap volume (its items, or every key)."""
    data = configmaps.get(volume["configMap"]["name"], {})
    items = volume["configMap"].get("items") or [{"key": k, "path": k} for k in data]
    return {item["path"]: data[item["key"]] for item in items if item["key"] in data}


def mounted(pod: dict, configmaps: dict[str, dict], extra: dict[str, str] | None = None) -> dict[str, str]:
    """Every file of a ConfigMap volume as a container sees it: absolute path -> content."""
    volumes = {v["name"]: v for v in pod.get("volumes", []) if "configMap" in v}
    files = dict(extra or {})
    for container in pod.get("containers", []):
        for m in container.get("volumeMounts", []):
            if m["name"] in volumes:
                for path, content in _configmap_files(volumes[m["name"]], configmaps).items():
                    files[posixpath.join(m["mountPath"], path)] = content
    return files


def missing(files: dict[str, str], entries: list[str]) -> list[str]:
    """'script -> what it reaches' for each file the entry scripts reach, directly or through the
    modules they import, that is not mounted."""
    problems, seen, todo = [], set(), list(entries)
    while todo:
        path = todo.pop()
        if path in seen or not path.endswith(".js"):
            continue
        seen.add(path)
        for ref in references(files[path]):
            resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), ref))
            if resolved not in files:
                problems.append(f"{path} reaches {ref} ({resolved}), which is not mounted")
            else:
                todo.append(resolved)
    return sorted(problems)


def script_not_mounted(pod: dict, files: dict[str, str]) -> list[str]:
    """The script a Job's SCRIPT names, where run.sh looks for it (beside itself), when it is not
    mounted there; nothing for a Job without run.sh or SCRIPT (the base's placeholder included)."""
    runs = [p for p in files if posixpath.basename(p) == "run.sh"]
    scripts = [
        e["value"]
        for c in pod.get("containers", [])
        for e in c.get("env", [])
        if e.get("name") == "SCRIPT" and e.get("value", "").endswith(".js")
    ]
    return [
        f"SCRIPT {s} is not mounted ({posixpath.join(posixpath.dirname(runs[0]), s)})"
        for s in scripts
        if runs and posixpath.join(posixpath.dirname(runs[0]), s) not in files
    ]


def check(docs: list[dict]) -> tuple[int, list[str]]:
    """(scripts checked, problems) for the Jobs and TestRuns of one rendered kustomization."""
    configmaps = {d["metadata"]["name"]: d.get("data", {}) for d in docs if d.get("kind") == "ConfigMap"}
    count, problems = 0, []
    for d in docs:
        where = f"{d['kind']}/{d['metadata']['name']}"
        if d["kind"] == "Job":
            # run.sh runs whichever mounted script SCRIPT names: every one is an entry, and the one
            # SCRIPT names must be mounted beside run.sh.
            files = mounted(d["spec"]["template"]["spec"], configmaps)
            entries = [p for p in files if p.endswith(".js")]
            problems += [f"{where}: {p}" for p in script_not_mounted(d["spec"]["template"]["spec"], files)]
        elif d["kind"] == "TestRun":
            runner = d["spec"].get("runner", {})
            script = d["spec"]["script"]["configMap"]
            flat = {posixpath.join(OPERATOR_MOUNT, k): v for k, v in configmaps.get(script["name"], {}).items()}
            # The runner's volumes, mounted as its volumeMounts say (one container's).
            files = mounted({"volumes": runner.get("volumes", []), "containers": [runner]}, configmaps, flat)
            entries = [posixpath.join(OPERATOR_MOUNT, script["file"])]
            if entries[0] not in files:
                problems.append(f"{where}: its script {script['file']} is not in ConfigMap {script['name']}")
                continue
        else:
            continue
        count += len(entries)  # a Job without a script (the resume Job) has none to check
        problems += [f"{where}: {p}" for p in missing(files, entries)]
    return count, problems


def k6_check(docs: list[dict], label: str) -> int:
    count, problems = check(docs)
    if problems:
        raise Failure(f"k6files {label}: " + "; ".join(problems))
    return count
