"""Running the plan: the service under test started where it runs, the load generator's engines,
each run sampled (the skeleton), the rounds, and a workload's Job in a cluster."""
