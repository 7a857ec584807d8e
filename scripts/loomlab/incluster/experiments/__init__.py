"""The in-cluster experiments beside `./lab k8s run`, each a command of its own built on the core
(docs/architecture.md says which work on any cluster and which on the lab's own only):

  scale        run --profile scale: how many worker pods make one virtual pod
  autoscale    an autoscaler (CPU, KEDA on the queue, none) under a worker pool held past its bound
               (autoscalers, phases, looks, autoscaletable)
  failover     one of two pods killed under a constant load (the lab's cluster only)
  netpol       the NetworkPolicies proven from outside (netpolcost: what enforcing costs, lab only)
  monitoring   the namespace's Prometheus: every target up, the metrics queryable
  fetch        a workload's raw results off its volume
"""
