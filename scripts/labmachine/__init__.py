"""The lab's own machinery, beside the harness (loomlab) that plans, runs, measures, decides and
reports: a real single-node Kubernetes built and run on this machine (`cluster`), a stock Debian 12
root filesystem that runs the README as a stranger would (`stock`), and the manifests checked
against schemas and a real API server (`verify`). It builds on the harness's shared parts (proc,
the lab cluster's names in loomlab.labcluster); the harness imports nothing of it. Where the
harness's experiments act on the lab's own node, the machinery hands it to them (`experiments`)."""
