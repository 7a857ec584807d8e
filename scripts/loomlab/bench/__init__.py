"""`./lab bench` (python -m loomlab.bench): the comparison of the modes.

- cli, plan: the options and what a run will take (standard library only: --help, --plan)
- loads, workloads/, profiles: what runs (load shapes, bounds, the seeds' figures, profiles as data)
- rounds, runner, runners, merge: how it runs (the service under test, k6, rounds, several runners)
- verdict, answer, tables, summaries, records, chart, report, compare: what it says
- api: what another driver of the same comparison (the in-cluster runner) may use
"""
