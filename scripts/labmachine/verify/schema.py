"""Stage 2: kubeconform, strict, against the published schemas of kubernetes-validate (offline)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import yaml

from . import NO_SCHEMA_KINDS, Failure, run


def prepare_schemas(source: Path, target: Path) -> Path:
    """kubernetes-validate's schemas, made usable offline by kubeconform: drop each `$id` and make
    the `/api/_definitions.json` references file-relative (else it silently tries the network)."""
    if (target / "_definitions.json").exists():
        return target
    target.mkdir(parents=True, exist_ok=True)
    for f in source.glob("*.json"):
        text = f.read_text().replace('"/api/_definitions.json#', '"_definitions.json#')
        data = json.loads(text)
        if isinstance(data, dict):
            data.pop("$id", None)
        (target / f.name).write_text(json.dumps(data))
    return target


def schema_check(kubeconform: str, schemas: Path, docs: list[dict], label: str):
    checked = [d for d in docs if d.get("kind") not in NO_SCHEMA_KINDS]
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
        yaml.safe_dump_all(checked, f)
        f.flush()
        p = run(
            [
                kubeconform,
                "-strict",
                "-summary",
                "-output",
                "text",
                "-schema-location",
                str(schemas) + "/{{.ResourceKind}}{{.KindSuffix}}.json",
                f.name,
            ]
        )
    if p.returncode != 0:
        raise Failure(f"schema {label}: {(p.stdout + p.stderr).strip()}")
    return p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
