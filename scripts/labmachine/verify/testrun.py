"""The k6 operator's TestRun as the pods the operator makes of it (runner, starter, initializer),
each with the labels and security contexts the TestRun gives it: the API server then judges them by
the namespace's Pod Security level. (The operator's CRD is not served here, and the API server does
not know a TestRun holds pod templates.)"""

from __future__ import annotations

ROLES = ("runner", "starter", "initializer")


def pods(testrun: dict) -> list[dict]:
    spec = testrun["spec"]
    made = []
    for role in ROLES:
        part = spec.get(role, {})
        made.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": f"{testrun['metadata']['name']}-{role}",
                    "labels": part.get("metadata", {}).get("labels", {}),
                },
                "spec": {
                    "securityContext": part.get("securityContext", {}),
                    "containers": [
                        {
                            "name": "k6",
                            "image": part.get("image", spec["runner"]["image"]),
                            "securityContext": part.get("containerSecurityContext", {}),
                        }
                    ],
                },
            }
        )
    return made
