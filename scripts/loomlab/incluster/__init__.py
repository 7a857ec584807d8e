"""`./lab k8s run`: the comparison in the cluster, the way a user runs it.

Applies deploy/k8s/local (the database and the JVM and JVM+AOT variants side by side, from the
images built here), then runs the bench's loads (scripts/loomlab/bench/: the same suites, warm-up,
repeats, bounds and report) with two differences only: the service is a Deployment whose pod is
replaced for each suite and mode (its start-up measured: pod created -> Ready), and each k6 run is
a Kubernetes Job of deploy/k8s/jobs running the very scripts of k6/ against the variant's Service.
Everything is read as a user would: Job results from the pod's log, /q/metrics and /q/health
through the Service (the API server's service proxy). Writes report.md, report.html and
results.json like ./lab bench, each section naming its environment.

  core/         what every command builds on: plan (the variants, the suites at the profile's
                scale, the time), deploy (the manifests applied, the load Jobs made and awaited),
                measure (a variant's Deployment as the bench's service under test), report, ...
  experiments/  the other commands: scale, autoscale, failover, netpol, monitoring, fetch
  cli.py        every command's options and module (standard library only: --help)
  __main__.py   the command line of run

Called by ./lab with the cluster up and the images built; see `./lab k8s run --help`.
"""
