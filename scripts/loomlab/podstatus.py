"""Where a pod (or a node) stands, read from the API's own JSON of it."""


def condition(obj: dict, type_: str) -> bool:
    """An object's condition of that type is True: a pod's or a node's Ready, an APIService's Available."""
    return any(c["type"] == type_ and c["status"] == "True" for c in obj["status"].get("conditions") or [])


def running(pod: dict) -> bool:
    """Every container of a pod has started (its state is running)."""
    statuses = pod["status"].get("containerStatuses") or []
    return bool(statuses) and all("running" in (c.get("state") or {}) for c in statuses)


def pod_said(pod: dict) -> str:
    """Where a pod stands, in one line for a message: its phase, each condition not yet True (with
    its reason), each container's state (waiting's reason, running since, terminated's exit)."""
    status = pod.get("status") or {}
    said = [f"pod {pod['metadata']['name']} {status.get('phase', '?')}"]
    said += [
        f"{c['type']} {c['status']}" + (f" ({c['reason']}: {c.get('message', '')})" if c.get("reason") else "")
        for c in status.get("conditions") or []
        if c["status"] != "True"
    ]
    for c in status.get("containerStatuses") or []:
        for state, detail in (c.get("state") or {}).items():
            what = detail.get("reason") or detail.get("startedAt") or ""
            code = f" exit {detail['exitCode']}" if "exitCode" in detail else ""
            said.append(f"container {c['name']} {state} {what}{code}".rstrip())
    return ", ".join(said)
