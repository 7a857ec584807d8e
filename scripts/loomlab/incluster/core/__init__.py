"""What every in-cluster command builds on, on any cluster a kubeconfig names: which variants and
suites run (plan), the manifests applied and the load Jobs made and awaited (deploy), a variant's
Deployment as the bench's service under test (measure), restricted helper pods (pods), a results
volume read back through a reader pod (volumes), Prometheus queries (promql), the report's
in-cluster tables and setup lines (report), and where a command runs (target)."""
