"""`./lab k8s verify`: every stage over every kustomization, then the broken cases (see the package)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from . import K8S, KUSTOMIZATIONS, NAMESPACE, ROOT, SERVED_CRDS, Failure, access, render, say
from .apiserver import ApiServer
from .k6files import k6_check
from .refs import images_check, namespaces_check, refs_check
from .schema import prepare_schemas, schema_check


def stages(docs, label, kubeconform, schemas, server, which=("schema", "server", "refs", "k6files")):
    out = []
    if "schema" in which:
        out.append("schema: " + schema_check(kubeconform, schemas, docs, label))
    if "server" in which:
        out.append(f"server: {server.dry_run(docs, label)} objects accepted")
    if "refs" in which:
        out.append(
            f"refs: {refs_check(docs, label)} references resolved, {images_check(docs, label)} images qualified,"
            f" {namespaces_check(docs, label, server.cluster_scoped_kinds())} objects in {NAMESPACE}"
        )
    if "k6files" in which:
        out.append(f"k6files: {k6_check(docs, label)} mounted scripts reach only mounted files")
    return out


def render_all() -> dict[str, list[dict]]:
    """Stage 1: every kustomization rendered, from a copy of deploy/ and k6/ that holds a throwaway
    database credential and TLS files where the tree has none (the real, gitignored files are never
    written: a verify killed midway would leave a known password or key for the next deploy)."""
    with tempfile.TemporaryDirectory(prefix="loomlab-verify-") as tmp:
        copy = Path(tmp)
        for tree in ("deploy", "k6"):
            shutil.copytree(ROOT / tree, copy / tree, symlinks=True)
        creds = copy / K8S.relative_to(ROOT) / "base" / "db-credentials.env"
        if not creds.exists():
            creds.write_text(
                "admin-username=postgres\nadmin-password=verify-only\nowner-username=loomlab_owner\n"
                "owner-password=verify-only\nusername=loomlab\npassword=verify-only\n"
            )
        tls = creds.parent / "db-tls"
        tls.mkdir(exist_ok=True)
        for name in ("ca.crt", "tls.crt", "tls.key"):
            if not (tls / name).exists():
                (tls / name).write_text("verify-only\n")
        say("== 1. render")
        rendered = {}
        for k in KUSTOMIZATIONS:
            rendered[k] = render(copy / K8S.relative_to(ROOT) / k, f"deploy/k8s/{k}")
            kinds = sorted({d["kind"] for d in rendered[k]})
            say(f"   {k}: {len(rendered[k])} objects ({', '.join(kinds)})")
        # deploy/k8s/access under another namespace's name, for stage 5 only (its objects are not loom-lab's).
        rendered["team-x"] = render(copy / K8S.relative_to(ROOT) / "testdata" / "team-x", "deploy/k8s/testdata/team-x")
        return rendered


def broken_cases(kubeconform: str, schemas: Path, server: ApiServer):
    """Each manifest under testdata/broken must be rejected by the stage its EXPECT file names."""
    say("== negative checks: each broken manifest must be rejected by its stage")
    failures = 0
    for case in sorted(p for p in (K8S / "testdata" / "broken").iterdir() if p.is_dir()):
        expect = (case / "EXPECT").read_text().split()[0]
        try:
            stages(render(case), case.name, kubeconform, schemas, server, (expect,))
        except Failure as e:
            say(f"   {case.name}: rejected by {expect} as expected: {' '.join(str(e).split())[-160:]}")
            continue
        say(f"   {case.name}: NOT rejected by {expect}")
        failures += 1
    if failures:
        raise Failure(f"{failures} broken manifest(s) passed a check that should have failed")


def main():
    tools = dict(line.split("=", 1) for line in os.environ["LOOMLAB_K8S_TOOLS"].split())
    schemas = prepare_schemas(Path(os.environ["LOOMLAB_K8S_SCHEMAS_SRC"]), Path(os.environ["LOOMLAB_K8S_SCHEMAS"]))
    rendered = render_all()
    everything = [d for k in KUSTOMIZATIONS for d in rendered[k]]
    namespace_doc = next(d for d in rendered["base"] if d["kind"] == "Namespace")

    say("== 2.-4. schema, server, refs")
    server = ApiServer(tools["KUBE_APISERVER"], tools["ETCD"])
    try:
        server.namespace(namespace_doc)
        for crd in SERVED_CRDS:
            server.crd(Path(tools["KEDA_CONFIG"]) / crd)
        say(
            f"   kube-apiserver ready on 127.0.0.1:{server.port}; namespace {NAMESPACE} "
            f"enforces '{namespace_doc['metadata']['labels']['pod-security.kubernetes.io/enforce']}'"
        )
        for k in KUSTOMIZATIONS:
            for line in stages(rendered[k], k, tools["KUBECONFORM"], schemas, server, ("schema", "server", "k6files")):
                say(f"   {k}: {line}")
        say(f"   all: refs: {refs_check(everything, 'all')} references resolved across every kustomization")
        say(f"   all: images: {images_check(everything, 'all')} container images, each naming its registry")
        namespaced = namespaces_check(everything, "all", server.cluster_scoped_kinds())
        say(f"   all: namespaces: {namespaced} namespaced objects, each in {NAMESPACE}")
        broken_cases(tools["KUBECONFORM"], schemas, server)
        say("== 5. access: the runner's account on the API server")
        scalers = [d for d in rendered["overlays/jvm-queue-autoscaled"] if d["kind"] == "ScaledObject"]
        lab = rendered["base"] + rendered["overlays/jvm"] + scalers
        access.check(server, rendered, lab, say)
    finally:
        server.stop()
    say("k8s verify: all stages passed")


if __name__ == "__main__":
    try:
        main()
    except Failure as e:
        print(f"k8s verify FAILED: {e}", file=sys.stderr)
        sys.exit(1)
